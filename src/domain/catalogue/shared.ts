// The catalogue (docs/product.md §10): every product text, one module per screen, so that each
// screen's JavaScript carries its own texts and no other's. Tests import these instead of
// retyping Arabic, so a wording change happens here and nowhere else.
//
// What every screen and the server share: the provider, the header and the line under the card,
// every screen's title (the pages' one router names them all, in the form's JavaScript), and
// the refusals that are no one screen's.
export const ar = {
  brandDefault: 'مزود الخدمة',
  titlePackage: (label: string, brand: string) => `التسجيل في باقة ${label} | ${brand}`,
  titleGeneric: (brand: string) => `التسجيل | ${brand}`,
  titleMyLink: (brand: string) => `رابط التسجيل الخاص بي | ${brand}`,
  titleProgram: (brand: string) => `نتائج برنامج الإحالة | ${brand}`,
  titleProgramMarketer: (brand: string) => `نتائج المسوق | ${brand}`,
  // The pages an e-mail's links open (catalogue/notifications.ts has the rest of their texts).
  titleConfirmNotifications: (brand: string) => `تأكيد بريدك الإلكتروني | ${brand}`,
  titleStopNotifications: (brand: string) => `إيقاف الرسائل | ${brand}`,
  // The form's heading, and the free trial's label among the packages on the other screens.
  headingFreeTrial: 'التجربة المجانية',
  fieldPackage: 'الباقة',
  errorNotAuthorized: 'ليس لديك صلاحية لعرض هذه الصفحة',
  notFound: '404 - Page Not Found from React Router',
  // The link and programme pages are drawn by their scripts (the link comes from localStorage,
  // the numbers need the token): without them, this.
  errorLinkPageNeedsScript:
    'تتطلب هذه الصفحة تفعيل JavaScript في المتصفح، يرجى تفعيله ثم إعادة تحميل الصفحة',
  errorTooManyRequests: 'محاولات كثيرة، يرجى المحاولة بعد قليل',
  errorBadRequest: 'طلب غير صالح',
  // The quiet line under the card when BRAND_LICENCE is set: regulated advisers show it. The
  // number is isolated left to right (U+2066 … U+2069): after Arabic letters its digits count
  // as Arabic numbers, and 08126-37 would read 37-08126.
  licence: (licence: string) => `مرخّصة من هيئة السوق المالية، ترخيص رقم \u2066${licence}\u2069`,
  // The notice at collection under the button when PRIVACY_URL is set (the PDPL asks that the
  // person be told, as the data is taken, where the privacy policy is); the link follows it.
  privacyNotice: 'بالتسجيل، فإنك توافق على معالجة بياناتك وفق',
  privacyLink: 'سياسة الخصوصية',
} as const;
