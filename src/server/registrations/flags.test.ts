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

  it('burst: a link’s leads past BURST_LEADS within BURST_MINUTES, earlier ones in the batch counted', async () => {
    const { repository, flagged } = await openRepository(backend, {
      burstLeads: 3,
      burstMinutes: 10,
    });
    const register = (n: number, route: RouteAttribution, minutes: number) =>
      repository.register(signUp(phoneOf(n), route), at(minutes), 'api');
    const ids: string[] = [];
    for (const [n, minutes] of [0, 1, 2].entries())
      ids.push((await register(n, linkA, minutes)).id);
    // Another link at the same time is not part of this one's burst.
    await register(10, linkB, 3);
    const fourth = await register(3, linkA, 3);
    // Known past the threshold since the fourth: flagged without counting again.
    const fifth = await register(5, linkA, 4);
    // The window from 2.5 minutes on holds the fourth and fifth alone.
    const calm = await register(4, linkA, 12.5);
    // A general link has a burst of its own: three, then two more in one batch.
    for (const n of [20, 21, 22]) await register(n, {}, 20);
    const batch = await Promise.all([23, 24].map((n) => register(n, {}, 20)));

    expect(await flagged()).toEqual(
      [fourth.id, fifth.id, ...batch.map((lead) => lead.id)].map((id) => `${id} burst`).sort(),
    );
    expect(await flagged()).not.toContain(`${calm.id} burst`);
  });

  it('same_address: a link’s leads from one address in one UTC day past SAME_ADDRESS_LEADS', async () => {
    const { repository, flagged } = await openRepository(backend, { sameAddressLeads: 2 });
    const register = (n: number, route: RouteAttribution, addressHash: string, minutes: number) =>
      repository.register(signUp(phoneOf(n), route), at(minutes), 'api', {
        evidence: { addressHash, servedAt: null },
      });
    await register(1, linkA, 'address-1', 0);
    await register(2, linkA, 'address-1', 60);
    const third = await register(3, linkA, 'address-1', 120);
    // Another address, another link, an unknown address: each counted apart, or not at all.
    await register(4, linkA, 'address-2', 120);
    await register(5, linkB, 'address-1', 120);
    for (const n of [6, 7, 8]) await register(n, linkA, '', 120);
    // The next UTC day starts a new count (09:00 + 15 h is past midnight).
    await register(9, linkA, 'address-1', 15 * 60);
    const [, , sameBatch] = await Promise.all(
      [10, 11, 12].map((n) => register(n, linkB, 'address-3', 0)),
    );

    expect(await flagged()).toEqual(
      [third.id, sameBatch?.id].map((id) => `${id} same_address`).sort(),
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
        `${sameLink.id} fast`,
        `${otherLink.id} fast`,
      ].sort(),
    );
  });
});
