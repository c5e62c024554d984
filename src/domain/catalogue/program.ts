// The provider's page of the referral programme (docs/program.md), in its own chunk, and its
// API's refusals; it reuses arStats's labels of the same numbers. Its title is shared.ts's. The
// catalogue: shared.ts.
export const arProgram = {
  heading: 'نتائج برنامج الإحالة',
  // MARKETER_AUTH_* unset: nobody can sign in to see the programme's numbers.
  off: 'عرض نتائج البرنامج غير مفعّل',
  errorSignIn: 'يرجى تسجيل الدخول لعرض نتائج البرنامج',
  // The API's answer when the numbers could not be counted (500, or 503: the database out of
  // reach).
  errorStats: 'تعذر تحميل نتائج البرنامج',
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
  // The search box over the marketers' table: by name or id, whatever the form of the letters.
  search: 'البحث عن مسوق بالاسم أو الرقم',
  searchFound: (count: number) => `المسوقون المطابقون للبحث: ${count}`,
  searchNone: 'لا يوجد مسوق يطابق البحث',
  // The teams, by the directory's team leaders; each opens onto its members.
  teams: 'حسب الفريق',
  teamLeader: 'قائد الفريق',
  teamMembers: (count: number) => `الأعضاء: ${count}`,
  // The general links and the marketers the directory puts in no team.
  noTeam: 'خارج الفرق',
  // The period's fifth choice, after arStats.statsPeriods: a range of days, from one date to
  // another, both included.
  periodRange: 'فترة محددة',
  rangeFrom: 'من تاريخ',
  rangeTo: 'إلى تاريخ',
  rangeShow: 'عرض الفترة',
  // Why a range cannot be shown: on the page before it asks, and the API's refusal (400).
  errorRange: {
    dates: 'يرجى اختيار تاريخ البداية وتاريخ النهاية',
    order: 'يجب ألا يكون تاريخ البداية بعد تاريخ النهاية',
    // The longest range: longestRange in domain/program-stats.ts.
    length: 'لا يمكن أن تزيد الفترة على 366 يوماً',
    future: 'لا يمكن اختيار تاريخ بعد اليوم',
  },
  // Under the totals: the period they are compared with, the same number of days right before.
  previousPeriod: (dates: string) => `مقارنةً بالفترة السابقة: ${dates}`,
  // A period's days: one, or the first and the last.
  dates: (from: string, to: string) => (from === to ? from : `${from} – ${to}`),
  // Beside each total: the previous period's figure, then the change.
  previous: (value: string) => `السابقة: ${value}`,
  // The change as drawn (an arrow, hidden from screen readers) and as said.
  changeUp: (percent: string) => `زيادة ${percent} عن الفترة السابقة`,
  changeDown: (percent: string) => `انخفاض ${percent} عن الفترة السابقة`,
  changeNone: 'دون تغيير',
  changeNoneSaid: 'دون تغيير عن الفترة السابقة',
  // A total the previous period had none of: no percentage of nothing.
  changeNew: 'جديد',
  changeNewSaid: 'جديد: لا شيء منه في الفترة السابقة',
} as const;

// The review list (docs/flags.md): the flagged leads awaiting a decision on their credit, and
// the decision.
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
  // The API's refusals: a body that is not a decision, a lead that is not stored, a list that
  // could not be read.
  errorDecision: 'القرار المرسل غير صالح',
  errorNotFound: 'لا يوجد تسجيل بهذا المعرّف',
  errorList: 'تعذر تحميل قائمة المراجعة',
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
