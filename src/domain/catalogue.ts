// Every product text (docs/product.md §10, which names these keys). Tests import these
// instead of retyping Arabic, so a wording change happens here and nowhere else.
export const ar = {
  brandDefault: 'مزود الخدمة',
  titlePackage: (label: string, brand: string) => `التسجيل في باقة ${label} | ${brand}`,
  titleGeneric: (brand: string) => `التسجيل | ${brand}`,
  headingPrefix: 'التسجيل في باقة',
  headingFreeTrial: 'التجربة المجانية',
  fieldName: 'الاسم',
  fieldEmail: 'البريد الإلكتروني',
  fieldPhone: 'رقم الجوال',
  fieldPhonePlaceholder: '9665xxxxxxxx',
  buttonBack: 'العودة إلى الموقع',
  buttonSubmit: 'تسجيل',
  buttonSubmitting: 'جارٍ التسجيل...',
  errorInvalid: 'يرجى إدخال الاسم ورقم جوال صحيح يبدأ بـ 9665',
  errorGeneric: 'حدث خطأ أثناء التسجيل',
  success: 'تم التسجيل بنجاح! سيتم التواصل معك قريباً.',
  errorNotAuthorized: 'ليس لديك صلاحية لعرض هذه الصفحة',
  notFound: '404 - Page Not Found from React Router',
  titleMyLink: (brand: string) => `رابط التسجيل الخاص بي | ${brand}`,
  headingMyLink: 'رابط التسجيل الخاص بي',
  buttonCopy: 'نسخ الرابط',
  alertCopied: 'تم نسخ الرابط!',
  // The sharing kit of the link page; the free-trial pick reuses headingFreeTrial.
  fieldPackage: 'الباقة',
  altQrCode: 'رمز QR لرابط التسجيل',
  buttonDownloadQr: 'تنزيل رمز QR',
  errorQrCode: 'تعذر إنشاء رمز QR',
  buttonShareWhatsApp: 'مشاركة عبر واتساب',
  buttonShare: 'مشاركة',
  shareInvitationPackage: (label: string) => `أدعوك للتسجيل في باقة ${label} عبر هذا الرابط:`,
  shareInvitationFreeTrial: 'أدعوك للتسجيل في التجربة المجانية عبر هذا الرابط:',
  // The WhatsApp message: the invitation, then the link on its own line (WhatsApp makes it a link).
  shareMessage: (invitation: string, link: string) => `${invitation}\n${link}`,
  errorTooManyRequests: 'محاولات كثيرة، يرجى المحاولة بعد قليل',
  errorBadRequest: 'طلب غير صالح',
  notesPackagePrefix: 'مسجل في باقة',
  notesMarketerLink: 'تم التسجيل من رابط مسوق خارجي',
  notesGeneralLink: 'تم التسجيل من رابط تسجيل عام',
  // The honeypot's label: nobody sees or hears it; a bot reading the markup may.
  fieldTrap: 'اترك هذا الحقل فارغاً',
  errorChallenge: 'تعذر التحقق من الطلب، يرجى إعادة المحاولة',
} as const;

// Link previews: the description and Open Graph tags of the server-rendered head, and
// the text of the preview image (scripts/og-image.ts). Only the server's render uses them, so
// they are kept out of `ar`, which the pages' JavaScript carries whole.
export const arPreview = {
  // The site's description, once in index.html: the link page and unknown paths use it.
  description: 'سجل اهتمامك بباقات التوصيات والمحافظ أو بالتجربة المجانية، وسنتواصل معك قريباً.',
  descriptionPackage: (label: string) => `سجل اهتمامك بباقة ${label}، وسنتواصل معك قريباً.`,
  descriptionFreeTrial: 'سجل اهتمامك بالتجربة المجانية، وسنتواصل معك قريباً.',
  imageHeadline: 'سجل اهتمامك الآن',
  imageTagline: 'باقات التوصيات والمحافظ والتجربة المجانية',
  imageAlt: 'سجل اهتمامك الآن: باقات التوصيات والمحافظ والتجربة المجانية',
} as const;
