// The form (docs/product.md §2–§8): its fields, its states, the sign-up's refusals (the JSON
// API's and the form post's) and the notes text it sends. The catalogue: shared.ts.
export const arForm = {
  headingPrefix: 'التسجيل في باقة',
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
  notesPackagePrefix: 'مسجل في باقة',
  notesMarketerLink: 'تم التسجيل من رابط مسوق خارجي',
  notesGeneralLink: 'تم التسجيل من رابط تسجيل عام',
  // The honeypot's label: nobody sees or hears it; a bot reading the markup may.
  fieldTrap: 'اترك هذا الحقل فارغاً',
  errorChallenge: 'تعذر التحقق من الطلب، يرجى إعادة المحاولة',
  // The proof of work is solved by the page's JavaScript: a form posted without it cannot pass.
  errorChallengeNeedsScript:
    'يتطلب التسجيل تفعيل JavaScript في المتصفح، يرجى تفعيله ثم إعادة المحاولة',
} as const;
