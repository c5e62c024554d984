import { basePath, myLinkPath, programPath } from '../../domain/links';
import type { MailKind } from '../../domain/notifications';
import type { MailBrand } from '../../mail/compose';
import { logoSrc } from '../brand-logo';
import type { Config } from '../env';

/**
 * The addresses an e-mail links to, on PUBLIC_URL (an e-mail has no page to be relative to),
 * and the provider it names.
 */
export interface MailLinks {
  brand: MailBrand;
  myLink: string;
  program: string;
  reviewList: string;
  confirm(token: string): string;
  unsubscribe(kind: MailKind, token: string): string;
}

export function mailLinks(publicUrl: string, brand: Config['brand']): MailLinks {
  const origin = publicUrl.replace(/\/+$/, '');
  const at = (path: string) => `${origin}${basePath}${path}`;
  return {
    brand: {
      name: brand.name,
      logoUrl: brand.logo === undefined ? undefined : `${origin}${logoSrc(brand.logo)}`,
      licence: brand.licence,
    },
    myLink: at(myLinkPath),
    program: at(programPath),
    reviewList: `${at(programPath)}#review-heading`,
    confirm: (token) => at(`/notifications/confirm/${encodeURIComponent(token)}`),
    unsubscribe: (kind, token) => at(`/notifications/stop/${kind}/${encodeURIComponent(token)}`),
  };
}
