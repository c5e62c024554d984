// The e-mails a person asks for on their link page or the programme's page, and the pages their
// links open (docs/notifications.md).
export const arNotifications = {
  // Shown beside the choices, and recorded with each consent by its version below.
  consent:
    'نرسل إليك ما تختاره فقط، إلى العنوان الذي تؤكده، ويمكنك إيقاف أي رسالة في أي وقت من الرابط في أسفلها.',
} as const;

/**
 * The version of the text a person is shown when they ask (`consent` and the choices' labels):
 * recorded with each consent. Change it whenever that text changes.
 */
export const notificationsTextVersion = '2026-11-29';
