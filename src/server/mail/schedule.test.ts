import { describe, expect, it } from 'vitest';
import {
  dueDay,
  dueWeek,
  lastFinishedWeek,
  parseDailyAt,
  parseWeeklyAt,
  weekOf,
  weeklySendTime,
  zonedTime,
} from './schedule';

const riyadh = 'Asia/Riyadh';
const sunday8 = parseWeeklyAt('sunday 08:00')!;
const at8 = parseDailyAt('08:00')!;

describe('the schedule of the summaries', () => {
  it('reads a weekday and a time, and a time of day', () => {
    expect(parseWeeklyAt('Sunday 08:00')).toEqual({ weekday: 0, minutes: 480 });
    expect(parseWeeklyAt('  saturday   23:59 ')).toEqual({ weekday: 6, minutes: 1439 });
    expect(parseDailyAt('7:30')).toEqual({ minutes: 450 });
    for (const wrong of ['sunday', '08:00', 'sun 08:00', 'sunday 24:00', 'sunday 08:00 UTC']) {
      expect(parseWeeklyAt(wrong)).toBeUndefined();
    }
    for (const wrong of ['', '8', '08:60', '8am', '08:00:00']) {
      expect(parseDailyAt(wrong)).toBeUndefined();
    }
  });

  it('takes the week as the seven UTC days Sunday to Saturday', () => {
    // 2026-11-22 is a Sunday.
    expect(weekOf('2026-11-22')).toEqual({ from: '2026-11-22', to: '2026-11-28' });
    expect(weekOf('2026-11-28')).toEqual({ from: '2026-11-22', to: '2026-11-28' });
    expect(weekOf('2026-11-29')).toEqual({ from: '2026-11-29', to: '2026-12-05' });
    expect(lastFinishedWeek(new Date('2026-11-29T00:00:00Z'))).toEqual({
      from: '2026-11-22',
      to: '2026-11-28',
    });
    expect(lastFinishedWeek(new Date('2026-11-28T23:59:59Z'))).toEqual({
      from: '2026-11-15',
      to: '2026-11-21',
    });
  });

  it('sends a week on the Sunday after it at 08:00 in Riyadh, 05:00 UTC', () => {
    const week = { from: '2026-11-22', to: '2026-11-28' };
    expect(weeklySendTime(week, sunday8, riyadh).toISOString()).toBe('2026-11-29T05:00:00.000Z');
    expect(dueWeek(new Date('2026-11-29T04:59:59Z'), sunday8, riyadh)).toBeUndefined();
    expect(dueWeek(new Date('2026-11-29T05:00:00Z'), sunday8, riyadh)).toEqual(week);
    // Still the last finished week until the next one ends.
    expect(dueWeek(new Date('2026-12-05T23:00:00Z'), sunday8, riyadh)).toEqual(week);
    expect(weeklySendTime(week, sunday8, 'UTC').toISOString()).toBe('2026-11-29T08:00:00.000Z');
  });

  it('never sends a week before it ends, in a zone whose Sunday begins before UTC’s', () => {
    const week = { from: '2026-11-22', to: '2026-11-28' };
    // Kiritimati is UTC+14: its Sunday 08:00 is Saturday 18:00 UTC, before the week ends.
    expect(weeklySendTime(week, sunday8, 'Pacific/Kiritimati').toISOString()).toBe(
      '2026-12-05T18:00:00.000Z',
    );
    // A Monday after the week, in New York (UTC-5 in November).
    expect(
      weeklySendTime(week, parseWeeklyAt('monday 09:30')!, 'America/New_York').toISOString(),
    ).toBe('2026-11-30T14:30:00.000Z');
  });

  it('sends the review digest once the day’s time has come in the zone', () => {
    expect(dueDay(new Date('2026-11-29T04:59:00Z'), at8, riyadh)).toBeUndefined();
    expect(dueDay(new Date('2026-11-29T05:00:00Z'), at8, riyadh)).toBe('2026-11-29');
    // 22:00 UTC is already the next day in Riyadh, before its 08:00.
    expect(dueDay(new Date('2026-11-29T22:00:00Z'), at8, riyadh)).toBeUndefined();
    expect(dueDay(new Date('2026-11-29T20:59:00Z'), at8, riyadh)).toBe('2026-11-29');
  });

  it('finds a time in a zone with summer time, on either side of the change', () => {
    // Berlin: UTC+1 in winter, UTC+2 from 2026-03-29 02:00.
    expect(zonedTime('2026-03-28', 480, 'Europe/Berlin').toISOString()).toBe(
      '2026-03-28T07:00:00.000Z',
    );
    expect(zonedTime('2026-03-29', 480, 'Europe/Berlin').toISOString()).toBe(
      '2026-03-29T06:00:00.000Z',
    );
  });
});
