import { expect, it, onTestFinished } from 'vitest';
import { buildNotes, type RouteAttribution } from '../../domain/notes';
import type { Registration } from '../../domain/registration';
import { openDatabase } from '../db/database';
import { migrateToLatest } from '../db/migrate';
import { loadConfig } from '../env';
import {
  createTestDatabase,
  describeOnBackends,
  type TestBackend,
} from '../../../testing/server-test-helpers';
import { defaultFlagSettings, type FlagSettings } from './flags';
import { createRegistrationRepository, type SignUpEvidence } from './registration-repository';

async function openRepository({ database: kind }: TestBackend, settings: Partial<FlagSettings>) {
  const test = await createTestDatabase(kind);
  onTestFinished(() => test.drop());
  const database = await openDatabase(loadConfig({ DATABASE_URL: test.url }).database);
  onTestFinished(() => database.close());
  await migrateToLatest(database);
  const repository = createRegistrationRepository(database, {
    flagSettings: { ...defaultFlagSettings, ...settings },
  });
  // Each flag as `lead flag other`, sorted: the databases order ids alike only as plain text.
  const flagged = async () =>
    (await test.flags())
      .map((row) => `${row.registration_id} ${row.flag} ${row.other_id ?? ''}`.trim())
      .sort();
  return { repository, flagged };
}

function signUp(phone: string, route: RouteAttribution, email = ''): Registration {
  return {
    name: 'سارة',
    email,
    phone,
    notes: buildNotes(route),
    ...(route.marketingId !== undefined && { marketing_id: route.marketingId }),
  };
}

const linkA = { packageName: 'premium_reco', marketingId: '42' };
const linkB = { packageName: 'classic_reco', marketingId: '7' };
const start = Date.parse('2026-03-01T09:00:00.000Z');
const at = (minutes: number) => new Date(start + minutes * 60_000);
const noEvidence: SignUpEvidence = { addressHash: '', servedAt: null };
const phoneOf = (n: number) => `9665${String(n).padStart(8, '0')}`;

describeOnBackends('on $name, the flags of a new lead', (backend) => {
  it('contested: the phone is a lead of another marketer or a general link within CONTESTED_DAYS', async () => {
    const { repository, flagged } = await openRepository(backend, { contestedDays: 30 });
    const register = (phone: string, route: RouteAttribution, day: number) =>
      repository.register(signUp(phone, route), at(day * 24 * 60), 'api');

    const first = await register(phoneOf(1), linkA, 0);
    // The same marketer's other package is not another marketer's.
    await register(phoneOf(1), { ...linkA, packageName: 'economy_reco' }, 1);
    // Another marketer's link, another package: contested, naming the first lead.
    const second = await register(phoneOf(1), linkB, 29);
    // Past the window: the earlier lead is 31 days old.
    await register(phoneOf(2), {}, 0);
    await register(phoneOf(2), linkA, 31);
    // A general link's earlier lead contests a marketer's.
    const afterGeneral = await register(phoneOf(3), {}, 0);
    const marketer = await register(phoneOf(3), linkB, 2);
    // A repeat (same phone and notes within 24 hours) is not a lead: never flagged.
    const repeat = await register(phoneOf(3), linkB, 2.5);

    expect(repeat).toEqual({ id: marketer.id, repeat: true });
    expect(await flagged()).toEqual(
      [`${second.id} contested ${first.id}`, `${marketer.id} contested ${afterGeneral.id}`].sort(),
    );
  });

  it('contested: a lead earlier in the same batch counts', async () => {
    const { repository, flagged } = await openRepository(backend, {});
    const now = at(0);
    // Sent together: one group commit stores both, in this order.
    const [first, second] = await Promise.all([
      repository.register(signUp(phoneOf(1), linkA), now, 'api'),
      repository.register(signUp(phoneOf(1), linkB), now, 'api'),
    ]);
    expect(await flagged()).toEqual([`${second?.id} contested ${first?.id}`]);
  });

  it('burst: a marketer’s leads past BURST_LEADS within BURST_MINUTES, the first of the burst and the batch’s included', async () => {
    const { repository, flagged } = await openRepository(backend, {
      burstLeads: 3,
      burstMinutes: 10,
    });
    const register = (n: number, route: RouteAttribution, minutes: number) =>
      repository.register(signUp(phoneOf(n), route), at(minutes), 'api');
    const ids: string[] = [];
    for (const [n, minutes] of [0, 1, 2].entries())
      ids.push((await register(n, linkA, minutes)).id);
    // Another marketer at the same time is not part of this one's burst.
    await register(10, linkB, 3);
    expect(await flagged()).toEqual([]);
    // The fourth passes the threshold: the three before it are the start of its burst.
    const fourth = await register(3, linkA, 3);
    // Known past the threshold since the fourth: flagged without counting again.
    const fifth = await register(5, linkA, 4);
    // The window from 2.5 minutes on holds the fourth and fifth alone.
    const calm = await register(4, linkA, 12.5);
    // Another burst, passed within one batch: all of its leads are flagged.
    const batch = await Promise.all([30, 31, 32, 33].map((n) => register(n, linkA, 40)));

    expect(await flagged()).toEqual(
      [...ids, fourth.id, fifth.id, ...batch.map((lead) => lead.id)]
        .map((id) => `${id} burst`)
        .sort(),
    );
    expect(await flagged()).not.toContain(`${calm.id} burst`);
  });

  it('burst: a new package key for each sign-up is the same marketer (marketer 51, pk10 … pk34)', async () => {
    const { repository, flagged } = await openRepository(backend, {});
    const evidence = { addressHash: 'address-1', servedAt: null };
    const leads: string[] = [];
    for (let n = 0; n < 25; n += 1) {
      const route = { packageName: `pk${10 + n}`, marketingId: '51' };
      leads.push(
        (await repository.register(signUp(phoneOf(n), route), at(n / 10), 'api', { evidence })).id,
      );
    }
    const flags = await flagged();
    // 25 leads in 2.4 minutes from one address: all of them a burst, and past the third from
    // that address, same_address.
    expect(flags.filter((row) => row.endsWith(' burst'))).toEqual(
      leads.map((id) => `${id} burst`).sort(),
    );
    expect(flags.filter((row) => row.endsWith(' same_address'))).toEqual(
      leads
        .slice(3)
        .map((id) => `${id} same_address`)
        .sort(),
    );
  });

  it('burst: twenty junk sign-ups from twenty addresses then a real one are all flagged; a general link never', async () => {
    const { repository, flagged } = await openRepository(backend, {});
    const register = (n: number, route: RouteAttribution, minutes: number) =>
      repository.register(signUp(phoneOf(n), route), at(minutes), 'api', {
        evidence: { addressHash: `address-${n}`, servedAt: null },
      });
    const rival = { packageName: 'premium_reco', marketingId: '90' };
    const junk: string[] = [];
    for (let n = 0; n < 20; n += 1) junk.push((await register(n, rival, n / 4)).id);
    expect(await flagged()).toEqual([]);
    const real = await register(20, rival, 5);
    // The provider's own campaign through a general link: never a burst.
    for (let n = 100; n < 130; n += 1) await register(n, {}, 6);

    expect(await flagged()).toEqual([...junk, real.id].map((id) => `${id} burst`).sort());
  });

  it('burst: the stored leads flagged after the fact are counted as changed and queue registration.flagged', async () => {
    const test = await createTestDatabase(backend.database);
    onTestFinished(() => test.drop());
    const database = await openDatabase(loadConfig({ DATABASE_URL: test.url }).database);
    onTestFinished(() => database.close());
    await migrateToLatest(database);
    const repository = createRegistrationRepository(database, {
      webhookEvents: true,
      flagSettings: { ...defaultFlagSettings, burstLeads: 2 },
    });
    // Two leads just before midnight, the third after it.
    const first = await repository.register(signUp(phoneOf(1), linkA), at(14 * 60 + 58), 'api');
    const second = await repository.register(signUp(phoneOf(2), linkA), at(14 * 60 + 59), 'api');
    // The changes of the first two's day: their flags written later change its counts.
    const changes = async () =>
      Number(
        (
          await database.db
            .selectFrom('count_day_changes')
            .select('changes')
            .where('day', '=', '2026-03-01')
            .executeTakeFirst()
        )?.changes ?? 0,
      );
    const before = await changes();
    const third = await repository.register(signUp(phoneOf(3), linkA), at(15 * 60 + 1), 'api');

    const flaggedEvents = (await test.events())
      .filter((event) => event.type === 'registration.flagged')
      .map((event) => event.subject_id)
      .sort();
    expect(flaggedEvents).toEqual([first.id, second.id].sort());
    expect(await changes()).toBeGreaterThan(before);
    // The third's own registration.created carries its flag: no second event for it.
    expect((await test.events()).filter((event) => event.subject_id === third.id)).toHaveLength(1);
  });

  it('same_address: a marketer’s leads from one address in one UTC day past SAME_ADDRESS_LEADS, whatever the package; the general links as one', async () => {
    const { repository, flagged } = await openRepository(backend, { sameAddressLeads: 2 });
    const register = (n: number, route: RouteAttribution, addressHash: string, minutes: number) =>
      repository.register(signUp(phoneOf(n), route), at(minutes), 'api', {
        evidence: { addressHash, servedAt: null },
      });
    await register(1, linkA, 'address-1', 0);
    await register(2, { ...linkA, packageName: 'economy_reco' }, 'address-1', 60);
    const third = await register(3, linkA, 'address-1', 120);
    // Another address, another marketer, an unknown address: each counted apart, or not at all.
    await register(4, linkA, 'address-2', 120);
    await register(5, linkB, 'address-1', 120);
    for (const n of [6, 7, 8]) await register(n, linkA, '', 120);
    // The next UTC day starts a new count (09:00 + 15 h is past midnight).
    await register(9, linkA, 'address-1', 15 * 60);
    const [, , sameBatch] = await Promise.all(
      [10, 11, 12].map((n) => register(n, linkB, 'address-3', 0)),
    );
    // The general links, whatever their packages, are one link.
    await register(13, {}, 'address-4', 0);
    await register(14, { packageName: 'classic_reco' }, 'address-4', 1);
    const general = await register(15, { packageName: 'economy_reco' }, 'address-4', 2);

    expect(await flagged()).toEqual(
      [third.id, sameBatch?.id, general.id].map((id) => `${id} same_address`).sort(),
    );
  });

  it('fast: sent less than FAST_SECONDS after its form was served; no stamp is no flag', async () => {
    const { repository, flagged } = await openRepository(backend, { fastSeconds: 2 });
    const now = at(0);
    const register = (n: number, servedAt: Date | null) =>
      repository.register(signUp(phoneOf(n), linkA), now, 'api', {
        evidence: { addressHash: '', servedAt },
      });
    const fast = await register(1, new Date(now.getTime() - 1_999));
    await register(2, new Date(now.getTime() - 2_000));
    await register(3, null);
    // Served "after" it was sent (another instance's clock): not a reading to trust.
    await register(4, new Date(now.getTime() + 500));

    expect(await flagged()).toEqual([`${fast.id} fast`]);
  });

  it('reused_form: a form’s stamp sent with more than FORM_STAMP_USES leads flags each of them', async () => {
    const { repository, flagged } = await openRepository(backend, { formStampUses: 3 });
    const register = (n: number, route: RouteAttribution, servedAt: Date, minutes = 10) =>
      repository.register(signUp(phoneOf(n), route), at(minutes), 'api', {
        evidence: { addressHash: '', servedAt },
      });
    const once = at(0);
    const twice = at(1);
    const reused: string[] = [];
    // Three uses, through any links: not yet a flag, and a repeat is no new use.
    for (const [n, route] of [linkA, linkB, {}].entries()) {
      reused.push((await register(n, route, once)).id);
    }
    await register(0, linkA, once, 11);
    for (const n of [10, 11, 12]) await register(n, linkA, twice);
    expect(await flagged()).toEqual([]);
    // The fourth use flags it and the three before; the fifth, sent later, too.
    reused.push((await register(3, linkB, once, 20)).id);
    reused.push((await register(4, linkB, once, 24 * 60)).id);

    expect(await flagged()).toEqual(reused.map((id) => `${id} reused_form`).sort());
  });

  it('disposable_email: its e-mail’s domain, or one it is under, is on the throwaway list', async () => {
    const { repository, flagged } = await openRepository(backend, {});
    const register = (n: number, email: string) =>
      repository.register(signUp(phoneOf(n), linkA, email), at(0), 'api', { evidence: noEvidence });
    const throwaway = await register(1, 'someone@Mailinator.com');
    const under = await register(2, 'someone@mx.mailinator.com');
    await register(3, 'someone@gmail.com');
    await register(4, '');

    expect(await flagged()).toEqual(
      [throwaway.id, under.id].map((id) => `${id} disposable_email`).sort(),
    );
  });

  it('flags a lead for each reason it has, and a repeat for none', async () => {
    const { repository, flagged } = await openRepository(backend, {
      burstLeads: 1,
      sameAddressLeads: 1,
    });
    const now = at(0);
    const evidence = { addressHash: 'address-1', servedAt: now };
    // Before it: another person through its link from its address, and its phone through
    // another marketer's link; each sent at once after its page was served.
    const sameLink = await repository.register(signUp(phoneOf(2), linkA), now, 'api', { evidence });
    const otherLink = await repository.register(signUp(phoneOf(1), linkB), now, 'api', {
      evidence,
    });
    const lead = await repository.register(
      signUp(phoneOf(1), linkA, 'a@mailinator.com'),
      now,
      'api',
      { evidence },
    );
    const repeat = await repository.register(
      signUp(phoneOf(1), linkA, 'a@mailinator.com'),
      now,
      'api',
      { evidence },
    );

    expect(repeat).toEqual({ id: lead.id, repeat: true });
    expect(await flagged()).toEqual(
      [
        `${lead.id} burst`,
        `${lead.id} contested ${otherLink.id}`,
        `${lead.id} disposable_email`,
        `${lead.id} fast`,
        `${lead.id} same_address`,
        // The lead before it of its link was the start of the burst.
        `${sameLink.id} burst`,
        `${sameLink.id} fast`,
        `${otherLink.id} fast`,
      ].sort(),
    );
  });
});
