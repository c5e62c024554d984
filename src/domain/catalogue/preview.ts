// Link previews: the description and Open Graph tags of the server-rendered head, and the text
// of the preview image (scripts/og-image.ts). Only the server's render uses them: no page's
// JavaScript carries them. The catalogue: shared.ts.
export const arPreview = {
  // The site's description, once in index.html: the link page and unknown paths use it.
  description: 'سجل اهتمامك بباقات التوصيات والمحافظ أو بالتجربة المجانية، وسنتواصل معك قريباً.',
  descriptionPackage: (label: string) => `سجل اهتمامك بباقة ${label}، وسنتواصل معك قريباً.`,
  descriptionFreeTrial: 'سجل اهتمامك بالتجربة المجانية، وسنتواصل معك قريباً.',
  imageHeadline: 'سجل اهتمامك الآن',
  imageTagline: 'باقات التوصيات والمحافظ والتجربة المجانية',
  imageAlt: 'سجل اهتمامك الآن: باقات التوصيات والمحافظ والتجربة المجانية',
} as const;
