// The e-mails the programme sends to the people who ask for them (docs/notifications.md,
// src/mail): only the server renders them, so no page's JavaScript carries these. The numbers'
// labels are arStats's and arProgram's, the packages' packages.ts's, the provider's name and
// licence line shared.ts's: an e-mail reads as the page it links to. The catalogue: shared.ts.
export const arMail = {
  // Every subject ends with the provider's name, as every page's title does: the inbox shows
  // whose e-mail it is before it is opened.
  subject: (what: string, brand: string) => `${what} | ${brand}`,

  // The confirmation: the one e-mail sent before an address is confirmed. Its first link is the
  // confirmation (the only one that confirms: a page with one button, docs/notifications.md).
  confirmationSubject: 'تأكيد بريدك الإلكتروني',
  confirmationHeading: 'أكّد بريدك الإلكتروني',
  confirmationAsked: 'طُلب أن تصل الرسائل التالية إلى هذا العنوان:',
  // The address is isolated left to right (U+2066 … U+2069): among Arabic words its dots and @
  // would otherwise be reordered.
  confirmationAddress: (email: string) => `العنوان: \u2066${email}\u2069`,
  confirmationButton: 'تأكيد البريد الإلكتروني وبدء الرسائل',
  confirmationExpiry: (days: number) => `يبقى رابط التأكيد صالحاً ${days} أيام، ويُستخدم مرة واحدة.`,
  confirmationIgnore:
    'إن لم تطلب هذه الرسائل فتجاهل هذه الرسالة: لن يتغير شيء، ولن يصلك منا غيرها.',
  confirmationWithdraw: 'إلغاء هذا الطلب',

  // A lead became a client: the package and the day, nothing of the person.
  clientSubject: 'أصبح أحد تسجيلاتك عميلاً',
  clientHeading: 'أصبح أحد تسجيلاتك عميلاً',
  clientIntro: 'اشترك أحد من سجّلوا عبر رابطك.',

  // The weekly summaries: a marketer's (and a team leader's, with the team) and the programme's.
  marketerWeekSubject: 'ملخص نتائجك الأسبوعي',
  marketerWeekHeading: 'ملخص نتائجك الأسبوعي',
  programWeekSubject: 'الملخص الأسبوعي لبرنامج الإحالة',
  programWeekHeading: 'الملخص الأسبوعي لبرنامج الإحالة',
  // The week: Sunday to Saturday, UTC, as the pages count days.
  week: (from: string, to: string) => `الأسبوع من ${from} إلى ${to}`,
  // A week with nothing in it is sent too, and says so.
  weekEmpty: 'لا زيارات ولا تسجيلات هذا الأسبوع.',
  // The numbers' table: its caption and its columns; each row is one of arStats's numbers.
  weekNumbers: 'هذا الأسبوع مقارنةً بالأسبوع السابق',
  teamNumbers: 'مجموع الفريق هذا الأسبوع مقارنةً بالأسبوع السابق',
  programNumbers: 'مجموع البرنامج هذا الأسبوع مقارنةً بالأسبوع السابق',
  columnNumber: 'الرقم',
  columnThisWeek: 'هذا الأسبوع',
  columnPreviousWeek: 'الأسبوع السابق',
  columnChange: 'التغيير',
  // The team's members this week (arStats's heading above them).
  teamMembersWeek: 'أعضاء فريقك هذا الأسبوع',
  // The programme's five marketers and five campaigns that brought the most clients.
  topMarketers: 'المسوقون الأكثر عملاءً هذا الأسبوع',
  topCampaigns: 'الحملات الأكثر عملاءً هذا الأسبوع',
  // A campaign: its source and its name, each isolated (Latin among Arabic); one column of the
  // programme's table, as two would not fit a 320 px phone beside the figures.
  campaignName: (source: string, campaign: string) =>
    `\u2068${source}\u2069 / \u2068${campaign}\u2069`,
  noMarketerClients: 'لم يأتِ أي عميل عبر مسوق هذا الأسبوع.',
  noCampaignClients: 'لم يأتِ أي عميل عبر حملة هذا الأسبوع.',

  // The leads awaiting review: how many (arReview's heading), and how long the oldest has waited.
  reviewIntro: 'تسجيلات يُشك في احتسابها تنتظر قرارك.',
  reviewOldest: (age: string) => `ينتظر أقدمها منذ ${age}.`,
  // A whole number of days, in Arabic's forms of the count (one, two, three to ten, more).
  days: (count: number, shown: string) => {
    if (count < 1) return 'أقل من يوم';
    if (count === 1) return 'يوم واحد';
    if (count === 2) return 'يومين';
    return count <= 10 ? `${shown} أيام` : `${shown} يوماً`;
  },

  // The links to the pages: each says where it goes.
  openMyLink: 'افتح صفحة رابطك لمزيد من التفاصيل',
  openProgram: 'افتح صفحة نتائج البرنامج لمزيد من التفاصيل',
  openReview: 'افتح قائمة المراجعة',

  // The footer of every e-mail but the confirmation: why it comes, and how to stop it (one
  // click on the link, the same as List-Unsubscribe's).
  whyMarketer: 'تصلك هذه الرسالة لأنك طلبتها من صفحة رابطك.',
  whyProgram: 'تصلك هذه الرسالة لأنك طلبتها من صفحة نتائج برنامج الإحالة.',
  stop: {
    client: 'إيقاف تنبيهات العملاء',
    weekly: 'إيقاف الملخص الأسبوعي',
    review: 'إيقاف تنبيهات المراجعة',
  },

  // A value after its label (the client note's package and day, and the plain text's figures).
  line: (label: string, value: string) => `${label}: ${value}`,
  // The plain-text part's link: written out on its own line after its words (a plain-text reader
  // has nothing to click but the address).
  link: (words: string, url: string) => `${words}:\n${url}`,
  // A total of the week, the week before's and the change in words (period-change.ts).
  numberLine: (label: string, value: string, previous: string, change: string | undefined) =>
    `${label}: ${value} (الأسبوع السابق: ${previous}${change === undefined ? '' : `، ${change}`})`,
  // A member's, a marketer's or a campaign's line: who, then each figure after its label.
  figure: (label: string, value: string) => `${label} ${value}`,
  figures: (who: string, figures: string[]) => `${who}: ${figures.join('، ')}`,
} as const;
