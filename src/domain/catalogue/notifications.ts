// The e-mails a person asks for on their link page or the programme's page, and the pages their
// links open (docs/notifications.md). Its own module: the choices' section and the two pages are
// chunks of their own, and the forms' JavaScript carries none of it. The two pages' titles are
// in shared.ts, with every screen's. The catalogue: shared.ts.
import { confirmationDays, type MailKind, type NotificationChoice } from '../notifications';

// Where a person changes what they get: said wherever a link cannot do it for them.
const wherePages = 'من صفحة رابطك أو من صفحة برنامج الإحالة';

export const arNotifications = {
  // Shown beside the choices, and recorded with each consent by its version below.
  consent:
    'نرسل إليك ما تختاره فقط، إلى العنوان الذي تؤكده، ويمكنك إيقاف أي رسالة في أي وقت من الرابط في أسفلها.',

  // The choices' section, on the link page and on the programme's page.
  heading: 'الرسائل بالبريد الإلكتروني',
  fieldEmail: 'البريد الإلكتروني',
  fieldChoices: 'ما يصلك',
  // One line each, and no audience named: the section offers only those that fit the person.
  choices: {
    weekly_summary: 'ملخص أسبوعي كل يوم أحد: نتائج الأسبوع مقارنة بالأسبوع الذي قبله',
    client_alerts: 'رسالة كلما أصبح أحد المسجلين عن طريقك عميلاً',
    review_digest: 'رسالة يومية بعدد التسجيلات التي تنتظر المراجعة، إن وُجدت',
  } satisfies Record<NotificationChoice, string>,
  buttonSave: 'حفظ',
  buttonSaving: 'جارٍ الحفظ...',
  errorLoad: 'تعذر تحميل اختياراتك',
  buttonRetry: 'إعادة المحاولة',
  // After a save, and on opening the section: where the e-mails go, or why none do yet. The
  // address is isolated left to right (U+2066 … U+2069), or the colon after it would move.
  sendingTo: (email: string) => `تصل الرسائل التي اخترتها إلى \u2066${email}\u2069`,
  confirmationSent: (email: string) =>
    `أرسلنا رسالة تأكيد إلى \u2066${email}\u2069: افتح الرابط فيها خلال ${confirmationDays} أيام لتبدأ الرسائل`,
  sendingNone: 'لن تصلك أي رسالة',
  // No answer (the connection), or the server busy (503): what was typed stays in the fields.
  errorSave: 'تعذر الحفظ الآن، يرجى المحاولة مرة أخرى بعد قليل',

  // The confirmation page: opening it (a mail scanner does) changes nothing; its button does.
  confirmHeading: 'تأكيد بريدك الإلكتروني',
  confirmLead: 'اضغط الزر لتأكيد عنوانك، فتبدأ الرسائل التي اخترتها بالوصول إليه.',
  confirmButton: 'تأكيد البريد الإلكتروني',
  confirmDone: `تم تأكيد عنوانك، وستصلك الرسائل التي اخترتها. يمكنك تغييرها أو إيقافها في أي وقت ${wherePages}.`,
  confirmInvalid: `هذا الرابط غير صالح: ربما استُخدم من قبل أو مضت عليه ${confirmationDays} أيام. اطلب رسالة تأكيد جديدة بحفظ اختياراتك مرة أخرى ${wherePages}.`,

  // The unsubscribe page of each kind of e-mail (List-Unsubscribe): 'confirmation' withdraws
  // the request that sent the confirmation.
  stopHeading: 'إيقاف الرسائل',
  stop: {
    weekly: {
      lead: 'اضغط الزر لإيقاف الملخص الأسبوعي الذي يصلك بالبريد.',
      button: 'إيقاف الملخص الأسبوعي',
      done: `تم إيقاف الملخص الأسبوعي، ولن يصلك بعد الآن. يمكنك تفعيله مرة أخرى ${wherePages}.`,
    },
    client: {
      lead: 'اضغط الزر لإيقاف الرسائل التي تصلك كلما أصبح أحد المسجلين عن طريقك عميلاً.',
      button: 'إيقاف رسائل العملاء',
      done: `تم إيقاف رسائل العملاء، ولن تصلك بعد الآن. يمكنك تفعيلها مرة أخرى ${wherePages}.`,
    },
    review: {
      lead: 'اضغط الزر لإيقاف الرسالة اليومية بالتسجيلات التي تنتظر المراجعة.',
      button: 'إيقاف رسالة المراجعة',
      done: `تم إيقاف رسالة المراجعة اليومية، ولن تصلك بعد الآن. يمكنك تفعيلها مرة أخرى ${wherePages}.`,
    },
    confirmation: {
      lead: 'اضغط الزر لسحب طلبك تلقي الرسائل: يبطل رابط التأكيد الذي وصلك، ولا يصلك شيء.',
      button: 'سحب الطلب',
      done: `تم سحب طلبك، ولن يصلك شيء بهذا العنوان. يمكنك الطلب مرة أخرى ${wherePages}.`,
    },
  } satisfies Record<MailKind, { lead: string; button: string; done: string }>,
  stopInvalid: `هذا الرابط غير صالح أو لم يعد صالحاً. يمكنك إيقاف الرسائل أو تغييرها ${wherePages}.`,
  // Either page, when the server could not do it (the database out of reach).
  linkFailed: 'تعذر إتمام ذلك الآن، يرجى المحاولة مرة أخرى بعد قليل.',

  // The refusals of PUT and GET /api/notifications, as their answers' `error`.
  errorSignIn: 'يرجى تسجيل الدخول لاختيار الرسائل التي تصلك',
  errorInvalid: 'تعذر حفظ اختياراتك: تحقق من البريد الإلكتروني',
  errorChoice: 'هذه الرسالة غير متاحة لك',
  errorNoEmail: 'اكتب بريدك الإلكتروني لنرسل إليه رسالة التأكيد',
  errorLimit: 'أرسلنا رسائل تأكيد كثيرة، يرجى استخدام آخر رسالة وصلتك أو المحاولة لاحقًا',
} as const;

/**
 * The version of the text a person is shown when they ask (`consent` and the choices' labels):
 * recorded with each consent. Change it whenever that text changes.
 */
export const notificationsTextVersion = '2026-11-29';
