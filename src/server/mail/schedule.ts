import { addDays } from '../../domain/program-stats';
import type { Week } from '../../domain/notifications';

// When the scheduled e-mails are due (docs/notifications.md): the weekly summaries of the last
// finished week (the seven UTC days Sunday to Saturday, the days every count uses) at a weekday
// and time of the provider's time zone, and the review digest at a time of each of its days.
// Pure functions of the clock, tested as such; Intl knows the zones (no library).

const weekdays = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** A time of day in the zone, in minutes after midnight. */
export interface DailyAt {
  minutes: number;
}

/** A weekday (0 Sunday … 6 Saturday) and a time of day in the zone. */
export interface WeeklyAt extends DailyAt {
  weekday: number;
}

/** HH:MM (24 hours) as minutes after midnight; undefined when it is not one. */
export function parseDailyAt(text: string): DailyAt | undefined {
  const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(text.trim());
  return match ? { minutes: Number(match[1]) * 60 + Number(match[2]) } : undefined;
}

/** `sunday 08:00` (a weekday in English, any case, then HH:MM); undefined when it is not one. */
export function parseWeeklyAt(text: string): WeeklyAt | undefined {
  const [day, time, ...rest] = text.trim().toLowerCase().split(/\s+/);
  const weekday = weekdays.indexOf(day ?? '');
  const at = parseDailyAt(time ?? '');
  if (weekday === -1 || at === undefined || rest.length > 0) return undefined;
  return { weekday, ...at };
}

/** Whether Intl knows the zone (an IANA name such as Asia/Riyadh). */
export function isTimeZone(zone: string): boolean {
  // Node 22's Intl also takes an offset (+03:00), which would not follow a zone's summer time:
  // a name it is, or nothing.
  if (!/^[A-Za-z]/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();
/** The wall clock of `zone` at `time`: its date (YYYY-MM-DD) and minutes after midnight. */
function wallClock(time: number, zone: string): { date: string; minutes: number } {
  let format = formats.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formats.set(zone, format);
  }
  const part = Object.fromEntries(
    format.formatToParts(new Date(time)).map(({ type, value }) => [type, value]),
  );
  return {
    date: `${part.year}-${part.month}-${part.day}`,
    minutes: Number(part.hour) * 60 + Number(part.minute),
  };
}

/** The zone's offset from UTC at `time`, in ms (Riyadh: +3 h). */
function offsetAt(time: number, zone: string): number {
  const { date, minutes } = wallClock(time, zone);
  // The wall clock reads whole minutes: compared with the minute `time` is in.
  return Date.parse(`${date}T00:00:00Z`) + minutes * 60_000 - Math.floor(time / 60_000) * 60_000;
}

/**
 * The instant at which the zone's wall clock reads `date` (YYYY-MM-DD) at `minutes` after
 * midnight. A time a clock change skips is taken at the offset before it; one it repeats, at
 * the first.
 */
export function zonedTime(date: string, minutes: number, zone: string): Date {
  const wall = Date.parse(`${date}T00:00:00Z`) + minutes * 60_000;
  const guess = wall - offsetAt(wall, zone);
  const settled = wall - offsetAt(guess, zone);
  return new Date(Math.min(guess, settled));
}

/** The local date of the zone at `now` (YYYY-MM-DD). */
export function zonedDate(now: Date, zone: string): string {
  return wallClock(now.getTime(), zone).date;
}

/** The week (Sunday to Saturday, UTC) that holds the UTC day `date`. */
export function weekOf(date: string): Week {
  const from = addDays(date, -new Date(`${date}T00:00:00Z`).getUTCDay());
  return { from, to: addDays(from, 6) };
}

/** The last week that ended before `now`'s UTC day. */
export function lastFinishedWeek(now: Date): Week {
  return weekOf(addDays(now.toISOString().slice(0, 10), -7));
}

/** The week before. */
export function weekBefore(week: Week): Week {
  return { from: addDays(week.from, -7), to: addDays(week.to, -7) };
}

/**
 * When a week's summaries are sent: the first time the zone's clock reads the weekday and time
 * at or after the week's end (the Sunday 00:00 UTC after its Saturday). Sunday 08:00 in Riyadh
 * is 05:00 UTC that Sunday.
 */
export function weeklySendTime(week: Week, at: WeeklyAt, zone: string): Date {
  const end = Date.parse(`${addDays(week.to, 1)}T00:00:00Z`);
  // The zone's date at the week's end, and the days after it up to a week: one of them is the
  // weekday (days of a zone ahead of UTC may begin before the week ends: taken a week later).
  const first = wallClock(end, zone).date;
  for (let day = -1; day <= 7; day++) {
    const date = addDays(first, day);
    if (new Date(`${date}T00:00:00Z`).getUTCDay() !== at.weekday) continue;
    const time = zonedTime(date, at.minutes, zone);
    if (time.getTime() >= end) return time;
  }
  // Unreachable: among nine days in a row the weekday is there twice, the later one after `end`.
  throw new Error('no send time');
}

/** The last finished week, when its send time has come; undefined before it. */
export function dueWeek(now: Date, at: WeeklyAt, zone: string): Week | undefined {
  const week = lastFinishedWeek(now);
  return now.getTime() >= weeklySendTime(week, at, zone).getTime() ? week : undefined;
}

/** The zone's day whose digest time has come at `now`; undefined before that time today. */
export function dueDay(now: Date, at: DailyAt, zone: string): string | undefined {
  const today = zonedDate(now, zone);
  return now.getTime() >= zonedTime(today, at.minutes, zone).getTime() ? today : undefined;
}
