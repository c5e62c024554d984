// A marketer's link page and its sharing kit (docs/marketer-kit.md), in the link page's chunk;
// the free-trial pick and the package field are shared.ts's. The catalogue: shared.ts.
export const arLinkPage = {
  heading: 'رابط التسجيل الخاص بي',
  buttonCopy: 'نسخ الرابط',
  alertCopied: 'تم نسخ الرابط!',
  altQrCode: 'رمز QR لرابط التسجيل',
  buttonDownloadQr: 'تنزيل رمز QR',
  errorQrCode: 'تعذر إنشاء رمز QR',
  buttonShareWhatsApp: 'مشاركة عبر واتساب',
  buttonShare: 'مشاركة',
  shareInvitationPackage: (label: string) => `أدعوك للتسجيل في باقة ${label} عبر هذا الرابط:`,
  shareInvitationFreeTrial: 'أدعوك للتسجيل في التجربة المجانية عبر هذا الرابط:',
  // The WhatsApp message: the invitation, then the link on its own line (WhatsApp makes it a link).
  shareMessage: (invitation: string, link: string) => `${invitation}\n${link}`,
} as const;
