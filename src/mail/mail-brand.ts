/** The provider as every e-mail names it: as on the pages. */
export interface MailBrand {
  name: string;
  /** The logo's absolute address on PUBLIC_URL; none without BRAND_LOGO. */
  logoUrl?: string;
  licence?: string;
}
