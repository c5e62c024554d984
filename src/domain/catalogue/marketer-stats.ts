// The marketer's numbers (docs/marketer-kit.md): the link page's section, in its own chunk, and
// the endpoint's refusals; the programme's page reuses its labels of the same numbers. The
// catalogue: shared.ts.
export const arStats = {
  heading: 'نتائج رابطك',
  fieldPeriod: 'الفترة',
  statsPeriods: { 1: 'اليوم', 7: 'آخر 7 أيام', 30: 'آخر 30 يوماً', 90: 'آخر 90 يوماً' },
  // The endpoints' refusal of a period that is none of these (the programme's too).
  errorPeriod: 'الفترة المطلوبة غير صالحة',
  statVisits: 'الزيارات',
  statUniqueVisitors: 'الزوار',
  statSignUps: 'التسجيلات',
  statConversion: 'نسبة التحويل',
  // In a conversion's place when leads outnumber the counted visitors (domain/conversion.ts): a
  // figure above 100 % would read as more than every visitor signing up.
  conversionMoreLeads: 'التسجيلات أكثر من الزوار',
  // Why, under the totals (and in the programme's CSV, on each such row).
  conversionMoreLeadsNote:
    'لا تُعرض نسبة التحويل حين تزيد التسجيلات على الزوار: قد يصل تسجيل دون زيارة محتسبة (عبر الواجهة البرمجية)، وقد يسجل عدة أشخاص من عنوان واحد فلا يُحتسبون جميعاً زواراً',
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
  // Above a table wider than the screen (both numbers' pages), which scrolls sideways in its region.
  tableScrolls: 'اسحب الجدول جانباً لعرض بقية الأعمدة',
  // A team leader's members, under the leader's own numbers.
  teamHeading: 'نتائج فريقك',
  teamMember: 'المسوق',
  // A marketer the directory names, on a team leader's table and the programme's page: the name,
  // then the id, each isolated (a Latin name or id among Arabic words would otherwise move the
  // brackets around).
  named: (name: string, id: string) => `\u2068${name}\u2069 (\u2068${id}\u2069)`,
  teamTotal: 'مجموع الفريق',
  teamSortByClients: 'ترتيب حسب العملاء',
  teamEmpty: 'لا يوجد أعضاء في فريقك بعد',
  // Flags and decisions on a lead's credit (docs/flags.md): how many, never which.
  statAwaitingReview: 'بانتظار المراجعة',
  statNotCredited: 'غير محتسبة',
  statsReviewNote:
    'قد تُراجع بعض التسجيلات قبل احتسابها، وما لم يُحتسب منها لا يدخل في التسجيلات ولا العملاء',
} as const;
