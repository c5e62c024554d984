// The numbers' pages format their figures with domain/stats-format.ts (the e-mails' summaries
// share it); only a moment in the reader's own time zone is the page's alone.
const times = new Intl.DateTimeFormat('ar', {
  numberingSystem: 'latn',
  day: 'numeric',
  month: 'long',
  hour: 'numeric',
  minute: '2-digit',
});

/** A moment of the API (ISO), in the reader's own time: its day, month, hour and minute. */
export const formatTime = (time: string) => times.format(new Date(time));
