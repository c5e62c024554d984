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
  // The link page is drawn by its script (the link comes from localStorage): without it, this.
  errorLinkPageNeedsScript:
    'تتطلب هذه الصفحة تفعيل JavaScript في المتصفح، يرجى تفعيله ثم إعادة تحميل الصفحة',
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
  // The proof of work is solved by the page's JavaScript: a form posted without it cannot pass.
  errorChallengeNeedsScript:
    'يتطلب التسجيل تفعيل JavaScript في المتصفح، يرجى تفعيله ثم إعادة المحاولة',
  // The quiet line under the card when BRAND_LICENCE is set: regulated advisers show it. The
  // number is isolated left to right (U+2066 … U+2069): after Arabic letters its digits count
  // as Arabic numbers, and 08126-37 would read 37-08126.
  licence: (licence: string) => `مرخّصة من هيئة السوق المالية، ترخيص رقم \u2066${licence}\u2069`,
  // The notice at collection under the button when PRIVACY_URL is set (the PDPL asks that the
  // person be told, as the data is taken, where the privacy policy is); the link follows it.
  privacyNotice: 'بالتسجيل، فإنك توافق على معالجة بياناتك وفق',
  privacyLink: 'سياسة الخصوصية',
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

// The marketer's numbers (docs/marketer-kit.md): the link page's section, in its own chunk, and
// the endpoint's refusal. Apart from `ar`, so that the form pages' JavaScript does not carry them.
export const arStats = {
  heading: 'نتائج رابطك',
  fieldPeriod: 'الفترة',
  statsPeriods: { 1: 'اليوم', 7: 'آخر 7 أيام', 30: 'آخر 30 يوماً', 90: 'آخر 90 يوماً' },
  statVisits: 'الزيارات',
  statUniqueVisitors: 'الزوار',
  statSignUps: 'التسجيلات',
  statConversion: 'نسبة التحويل',
  statDate: 'التاريخ',
  // A rate without visitors: no number, rather than 0% or a division by zero.
  statNone: '—',
  statsChart: 'الزيارات والتسجيلات والعملاء يومياً',
  statsLoading: 'جارٍ تحميل النتائج...',
  statsEmpty: 'لا توجد زيارات بعد',
  errorStats: 'تعذر تحميل النتائج',
  buttonRetry: 'إعادة المحاولة',
  // No token, or one the platform did not sign.
  errorSignIn: 'يرجى تسجيل الدخول لعرض نتائجك',
  // Leads whose status in the provider's CRM is `client` now (docs/marketer-kit.md).
  statClients: 'العملاء',
  statClientRate: 'نسبة العملاء',
  // A lead that becomes a client later still counts on the day it signed up.
  statsPeriodNote: 'يُحتسب كل تسجيل ونتيجته في يوم التسجيل',
  // The packages' table's caption: on a narrow phone it scrolls sideways, a region of that name.
  statsByPackage: 'حسب الباقة',
  // A team leader's members, under the leader's own numbers.
  teamHeading: 'نتائج فريقك',
  teamMember: 'المسوق',
  teamTotal: 'مجموع الفريق',
  teamSortByClients: 'ترتيب حسب العملاء',
  teamEmpty: 'لا يوجد أعضاء في فريقك بعد',
  // Flags and decisions on a lead's credit (docs/flags.md): how many, never which.
  statAwaitingReview: 'بانتظار المراجعة',
  statNotCredited: 'غير محتسبة',
  statsReviewNote:
    'قد تُراجع بعض التسجيلات قبل احتسابها، وما لم يُحتسب منها لا يدخل في التسجيلات ولا العملاء',
} as const;

// The provider's page of the referral programme (docs/program.md), in its own chunk; it reuses
// arStats's labels of the same numbers. The title is the server's too (src/web/routes.ts).
export const arProgram = {
  title: (brand: string) => `نتائج برنامج الإحالة | ${brand}`,
  heading: 'نتائج برنامج الإحالة',
  // MARKETER_AUTH_* unset: nobody can sign in to see the programme's numbers.
  off: 'عرض نتائج البرنامج غير مفعّل',
  errorSignIn: 'يرجى تسجيل الدخول لعرض نتائج البرنامج',
  statContacted: 'تم التواصل معهم',
  statQualified: 'المؤهلون',
  statLost: 'لم يشتركوا',
  byMarketer: 'حسب المسوق',
  // The general links' row: sign-ups through no marketer's link.
  general: '(الروابط العامة)',
  byCampaign: 'حسب الحملة',
  source: 'المصدر',
  campaign: 'الحملة',
  // A link's campaigns past its daily limit, together (the report's "(other)").
  other: '(أخرى)',
  none: '(بدون)',
  showAll: (count: number) => `عرض الكل (${count})`,
  download: 'تنزيل ملف CSV للفترة',
  // The leads with a flag (docs/flags.md), decided or not; the not credited are arStats's.
  statFlagged: 'تسجيلات للمراجعة',
} as const;

// The programme page's review list (docs/flags.md): the flagged leads awaiting a decision on
// their credit, and the decision. In the programme's chunk, with arProgram.
export const arReview = {
  heading: (count: number) => `تسجيلات بانتظار المراجعة (${count})`,
  intro: 'تسجيلات يُشك في احتسابها للمسوق: تبقى محتسبة إلى أن تقرر غير ذلك.',
  empty: 'لا توجد تسجيلات بانتظار المراجعة',
  // A lead's heading: when it came, and through whose link.
  lead: (time: string, marketer: string) => `${time} — ${marketer}`,
  phone: 'الجوال',
  // The phone's last three digits, read out rather than the dots drawn before them.
  phoneEnding: (digits: string) => `رقم ينتهي بـ ${digits}`,
  reasons: 'سبب المراجعة',
  flags: {
    contested: 'سبق تسجيل الرقم نفسه عبر رابط آخر',
    burst: 'تسجيلات كثيرة من الرابط في دقائق',
    fast: 'أُرسل النموذج أسرع مما يكتبه إنسان',
    reused_form: 'نموذج واحد أُرسل لتسجيلات كثيرة',
    disposable_email: 'بريد إلكتروني مؤقت',
    same_address: 'تسجيلات كثيرة للرابط من عنوان واحد في يوم',
  },
  // Who had the phone first, for `contested`: a marketer, a general link, or a lead since deleted.
  contestedBy: 'سُجّل أولاً لدى:',
  contestedGone: 'تسجيل سابق حُذف',
  note: 'ملاحظة (اختيارية)',
  decision: 'القرار',
  credited: 'محتسب',
  notCredited: 'غير محتسب',
  saving: 'جارٍ حفظ القرار...',
  errorSave: 'تعذر حفظ القرار، يرجى إعادة المحاولة',
  // A decision as recorded, shown beside the lead; who decided is isolated (U+2068 … U+2069),
  // as a Latin id among Arabic words would otherwise move the brackets around.
  decided: (decision: string, by: string, time: string) =>
    `${decision} (\u2068${by}\u2069، ${time})`,
  // Said once a decision made on the page is saved.
  recorded: (decided: string) => `تم تسجيل القرار: ${decided}`,
  // A burst's leads listed, decided at once from any of them.
  wholeBurst: (count: number) => `القرار نفسه لكل تسجيلات الدفعة المعروضة لهذا المسوق (${count})`,
  recordedMany: (count: number, decided: string) =>
    `تم تسجيل القرار على ${count} تسجيلات: ${decided}`,
  // The next page of the queue, the oldest first.
  more: 'عرض التسجيلات التالية',
  errorMore: 'تعذر تحميل التسجيلات التالية، يرجى إعادة المحاولة',
  // The leads decided last, each with every decision on it, the latest (the one that counts) first.
  decidedHeading: 'آخر القرارات',
  history: 'سجل القرارات',
  noteShown: 'ملاحظة:',
} as const;

// What became of a lead (docs/marketer-kit.md): the labels `npm run lead -- import` accepts for
// each status, as a person with a spreadsheet would type them.
export const arLeadStatus = {
  new: 'جديد',
  contacted: 'تم التواصل',
  qualified: 'مؤهل',
  client: 'عميل',
  lost: 'لم يشترك',
} as const;
