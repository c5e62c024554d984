import SqliteDatabase from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { arForm } from '../../domain/catalogue/form';
import { ar } from '../../domain/catalogue/shared';
import { formStampField, privacyVersionField, trapField } from '../../domain/form-fields';
import { registrationPath, signedUpParameter } from '../../domain/links';
import { buildNotes, type RouteAttribution } from '../../domain/notes';
import { buildPayload, type FormValues } from '../../domain/registration';
import type { FormState } from '../../domain/render-contract';
import { sampleBrand, sampleBrandEnv } from '../../../testing/sample-brand';
import {
  buildTestApp,
  fixtureBrand,
  fixtureFormState,
  sqliteBackend,
  describeOnBackends,
} from '../../../testing/server-test-helpers';
import { retryAfterSeconds } from '../server-limits';

type App = Awaited<ReturnType<typeof buildTestApp>>['app'];

const values: FormValues = { name: 'سارة', email: 'sara@example.com', phone: '966512345678' };
const path = '/register/register-client/premium_reco/42';
// What inject's default Host makes of the site's own origin.
const sameSite = { origin: 'http://localhost:80' };
const form = 'application/x-www-form-urlencoded';

/** The page's form as a browser posts it: its fields, the honeypot empty, from the site itself. */
function postForm(
  app: App,
  {
    url = path,
    fields = { ...values, [trapField]: '' },
    headers = sameSite,
  }: { url?: string; fields?: Record<string, string>; headers?: Record<string, string> } = {},
) {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': form, ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

/**
 * The provider (BRAND_*, PRIVACY_URL, PRIVACY_VERSION) as the render was given it: every page the
 * form's post answers names it, and shows the privacy notice with its version to post.
 */
const provider = {
  name: sampleBrand.name,
  logo: { src: expect.stringMatching(/^\/register\/brand-logo-[0-9a-f]{12}\.svg$/) },
  licence: sampleBrand.licence,
  privacyUrl: sampleBrand.privacyUrl,
  privacyVersion: sampleBrand.privacyVersion,
};

/** The form as the page shows it: values, invalid fields, error and success lines. */
function shown(state: Partial<FormState>): string {
  return fixtureFormState({
    values: { name: '', email: '', phone: '' },
    invalid: [],
    error: '',
    success: '',
    ...state,
  });
}

describeOnBackends('on $name', (backend) => {
  describe('a form posted without JavaScript', () => {
    it.each<[string, RouteAttribution]>([
      ['package and marketer', { packageName: 'premium_reco', marketingId: '42' }],
      ['package only', { packageName: 'economy_portfolio' }],
      ['marketer only', { marketingId: 'm-7' }],
      ['neither', {}],
    ])(
      'from a %s route is stored with the route’s notes and marketer, then shows the success line',
      async (_, route) => {
        const { app, rows } = await buildTestApp(backend);
        const url = registrationPath(route);
        const response = await postForm(app, { url });

        expect(response.statusCode).toBe(303);
        expect(response.headers.location).toBe(`${url}?${signedUpParameter}`);
        expect(await rows()).toMatchObject([
          {
            ...values,
            notes: buildNotes(route),
            marketing_id: route.marketingId ?? null,
            package_key: route.packageName ?? null,
          },
        ]);

        // The page it is sent to: the success line and an empty form; a reload posts nothing.
        for (let load = 0; load < 2; load += 1) {
          const page = await app.inject({ url: response.headers.location });
          expect(page.statusCode).toBe(200);
          expect(page.body).toContain(shown({ success: arForm.success }));
        }
        expect(await rows()).toHaveLength(1);
      },
    );

    it('matches its route as the pages do: paths in any case, encoded segments, a trailing slash', async () => {
      const { app, rows } = await buildTestApp(backend);
      const response = await postForm(app, {
        url: '/register/Register-Client/premium%5Freco/m%2E7/',
      });
      const route = { packageName: 'premium_reco', marketingId: 'm.7' };
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`${registrationPath(route)}?${signedUpParameter}`);
      expect(await rows()).toMatchObject([{ notes: buildNotes(route), marketing_id: 'm.7' }]);
    });

    it('keeps the notes of a repeat as the route gives them, like the API', async () => {
      const { app, rows } = await buildTestApp(backend);
      expect((await postForm(app)).statusCode).toBe(303);
      expect((await postForm(app)).statusCode).toBe(303);
      const [first, repeat] = await rows();
      expect(repeat).toMatchObject({ notes: first?.notes, repeat_of: first?.id });
    });

    it("stores the campaign parameters of the page's address, and keeps them in the redirect", async () => {
      const { app, rows } = await buildTestApp(backend);
      const campaign = 'c'.repeat(300);
      const response = await postForm(app, {
        url: `${path}?utm_source=snap%07chat&utm_medium=+cpc+&utm_campaign=${campaign}&utm_term=%D8%A3%D8%B3%D9%87%D9%85&utm_content=video&utm_foo=x`,
      });

      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(
        `${path}?utm_medium=cpc&utm_campaign=${'c'.repeat(100)}&utm_term=%D8%A3%D8%B3%D9%87%D9%85&utm_content=video&${signedUpParameter}`,
      );
      expect(await rows()).toMatchObject([
        {
          ...values,
          utm_source: null,
          utm_medium: 'cpc',
          utm_campaign: 'c'.repeat(100),
          utm_term: 'أسهم',
          utm_content: 'video',
        },
      ]);
      const page = await app.inject({ url: response.headers.location });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(shown({ success: arForm.success }));
    });

    it('stores no campaign when the address has none', async () => {
      const { app, rows } = await buildTestApp(backend);
      expect((await postForm(app)).statusCode).toBe(303);
      expect(await rows()).toMatchObject([
        {
          utm_source: null,
          utm_medium: null,
          utm_campaign: null,
          utm_term: null,
          utm_content: null,
        },
      ]);
    });

    it('records the notice version the page posted, and a post without one as not attested', async () => {
      // The policy changed to 2026-12 after the page was shown with 2026-11.
      const { app, rows } = await buildTestApp(backend, {
        ...sampleBrandEnv,
        PRIVACY_VERSION: '2026-12',
      });
      const shownNotice = { ...values, [trapField]: '', [privacyVersionField]: '2026-11' };
      expect((await postForm(app, { fields: shownNotice })).statusCode).toBe(303);
      const noNotice = { ...values, phone: '966500000002', [trapField]: '' };
      expect((await postForm(app, { fields: noNotice })).statusCode).toBe(303);
      expect(await rows()).toMatchObject([
        {
          privacy_url: sampleBrand.privacyUrl,
          privacy_version: '2026-11',
          privacy_attested: 1,
          channel: 'form',
        },
        {
          privacy_url: sampleBrand.privacyUrl,
          privacy_version: '2026-12',
          privacy_attested: 0,
          channel: 'form',
        },
      ]);
    });

    it('normalises the phone as the form does while typing', async () => {
      const { app, rows } = await buildTestApp(backend);
      const fields = { ...values, phone: '٠٥١٢٣٤٥٦٧٨', [trapField]: '' };
      expect((await postForm(app, { fields })).statusCode).toBe(303);
      expect(await rows()).toMatchObject([{ phone: '966512345678' }]);
    });

    it('answers an invalid phone with the page: 400, the Arabic error tied to it, values kept', async () => {
      const { app, rows, log } = await buildTestApp(backend);
      const typed = { ...values, phone: '12345' };
      const response = await postForm(app, { fields: { ...typed, [trapField]: '' } });

      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.body).toContain(
        shown({ values: typed, invalid: ['phone'], error: arForm.errorInvalid }),
      );
      expect(await rows()).toHaveLength(0);
      expect(log()).toContain('registration refused: invalid fields');
      expect(log()).not.toContain(typed.name);
      expect(log()).not.toContain(typed.email);
    });

    it('answers a filled honeypot like a sign-up, and stores nothing', async () => {
      const { app, rows } = await buildTestApp(backend);
      const response = await postForm(app, {
        fields: { ...values, [trapField]: 'https://spam.example' },
      });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe(`${path}?${signedUpParameter}`);
      expect(await rows()).toHaveLength(0);
    });

    it('says in Arabic that the proof of work needs JavaScript, keeping the values', async () => {
      const { app, rows } = await buildTestApp(backend, { ALTCHA_HMAC_KEY: 'k'.repeat(32) });
      const response = await postForm(app);
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain(shown({ values, error: arForm.errorChallengeNeedsScript }));
      expect(await rows()).toHaveLength(0);
    });

    it('answers the rate limit with the page: 429, Retry-After, the Arabic text, values kept', async () => {
      const { app, rows } = await buildTestApp(backend, { RATE_LIMIT_PER_MINUTE: '1' });
      expect((await postForm(app)).statusCode).toBe(303);
      const other = { ...values, phone: '966500000002' };
      const refused = await postForm(app, { fields: other });
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.body).toContain(shown({ values: other, error: ar.errorTooManyRequests }));
      expect(await rows()).toHaveLength(1);
    });

    it('names the provider on every page it answers: 400, after the 303, 429', async () => {
      const { app } = await buildTestApp(backend, {
        ...sampleBrandEnv,
        RATE_LIMIT_PER_MINUTE: '2',
      });
      const invalid = await postForm(app, {
        fields: { ...values, phone: '12345', [trapField]: '' },
      });
      expect(invalid.statusCode).toBe(400);
      expect(fixtureBrand(invalid.body)).toMatchObject(provider);

      const signedUp = await postForm(app);
      expect(signedUp.statusCode).toBe(303);
      const page = await app.inject({ url: signedUp.headers.location });
      expect(page.body).toContain(shown({ success: arForm.success }));
      expect(fixtureBrand(page.body)).toMatchObject(provider);

      const limited = await postForm(app, { fields: { ...values, phone: '966500000003' } });
      expect(limited.statusCode).toBe(429);
      expect(fixtureBrand(limited.body)).toMatchObject(provider);
    });
  });

  describe('refusals', () => {
    it.each<[string, Record<string, string>]>([
      ['another site’s Origin', { origin: 'https://evil.example' }],
      ['Origin null', { origin: 'null' }],
      ['a sibling subdomain', { origin: 'http://evil.localhost', 'sec-fetch-site': 'same-site' }],
      ['no Origin, and Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }],
      ['neither header', {}],
    ])('%s: 403, nothing stored, nothing echoed', async (_, headers) => {
      const { app, rows } = await buildTestApp(backend);
      const response = await postForm(app, { headers });
      expect(response.statusCode).toBe(403);
      expect(response.body).toContain(shown({ error: ar.errorBadRequest }));
      expect(response.body).not.toContain(values.name);
      expect(await rows()).toHaveLength(0);
    });

    it('takes Sec-Fetch-Site: same-origin, and PUBLIC_URL as the site’s origin', async () => {
      const { app, rows } = await buildTestApp(backend, { PUBLIC_URL: 'https://tasjeel.example' });
      const fetchSite = await postForm(app, { headers: { 'sec-fetch-site': 'same-origin' } });
      expect(fetchSite.statusCode).toBe(303);
      const origin = await postForm(app, {
        headers: { origin: 'https://tasjeel.example' },
        fields: { ...values, phone: '966500000002', [trapField]: '' },
      });
      expect(origin.statusCode).toBe(303);
      expect((await postForm(app, { headers: sameSite })).statusCode).toBe(403);
      expect(await rows()).toHaveLength(2);
    });

    it.each<[string, Record<string, string>]>([
      ['notes', { notes: buildNotes({ packageName: 'classic_reco' }) }],
      ['marketing_id', { marketing_id: '99' }],
      ['an unknown field', { admin: 'true' }],
      ['a proof-of-work solution', { altcha: 'eyJ9' }],
      ['utm_source (the address carries the campaign)', { utm_source: 'snapchat' }],
    ])('a body that sets %s: 400, nothing stored', async (_, extra) => {
      const { app, rows } = await buildTestApp(backend);
      const response = await postForm(app, { fields: { ...values, [trapField]: '', ...extra } });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain(shown({ values, error: arForm.errorInvalid }));
      expect(await rows()).toHaveLength(0);
    });

    it('a body over 16 KiB: 413, nothing stored', async () => {
      const { app, rows } = await buildTestApp(backend);
      const response = await postForm(app, {
        fields: { ...values, name: 'ن'.repeat(9_000), [trapField]: '' },
      });
      expect(response.statusCode).toBe(413);
      expect(response.body).toContain(shown({ error: ar.errorBadRequest }));
      expect(await rows()).toHaveLength(0);
    });

    it('JSON on a page, or a post to a page without a form: refused, nothing stored', async () => {
      const { app, rows } = await buildTestApp(backend);
      const json = await app.inject({
        method: 'POST',
        url: path,
        headers: sameSite,
        payload: { ...values, notes: buildNotes({}) },
      });
      expect(json.statusCode).toBe(415);
      expect(json.body).toContain(shown({ error: ar.errorBadRequest }));

      for (const url of [
        '/register/my-registration-link',
        '/register/nothing-here',
        `/register/register-client/${encodeURIComponent('<script>"&')}/42`,
      ]) {
        const noForm = await postForm(app, { url });
        expect(noForm.statusCode).toBe(404);
        expect(noForm.json()).toEqual({ error: ar.errorBadRequest });
      }
      expect(await rows()).toHaveLength(0);
    });

    it('leaves the JSON API as it was: no form posts there', async () => {
      const { app } = await buildTestApp(backend);
      const response = await postForm(app, { url: '/api/external-register' });
      expect(response.statusCode).toBe(415);
      expect(response.json()).toEqual({ error: ar.errorBadRequest });
    });
  });

  describe('the stamp of the time the page was served', () => {
    /** The app on a clock the test moves, and the stamp in the form of the page served now. */
    async function stampingApp() {
      let time = Date.parse('2026-03-01T09:00:00.000Z');
      // Every post comes from one address here: same_address stays out of the way.
      const built = await buildTestApp(
        backend,
        { SAME_ADDRESS_LEADS: '10' },
        { now: () => new Date(time) },
      );
      const stampOfPage = async () => {
        const page = await built.app.inject({ url: path });
        const stamp = new RegExp(`name="${formStampField}" value="([^"]*)"`).exec(page.body)?.[1];
        expect(stamp).toMatch(/^\d+\.[\w-]+$/);
        return stamp as string;
      };
      return { ...built, stampOfPage, wait: (ms: number) => (time += ms) };
    }
    const phoneOf = (n: number) => `96650000000${n}`;

    it('posted back without JavaScript flags a sign-up sent within 2 s as fast, and only that', async () => {
      const { app, rows, flags, stampOfPage, wait } = await stampingApp();
      const post = (phone: string, stamp: string) =>
        postForm(app, { fields: { ...values, phone, [trapField]: '', [formStampField]: stamp } });

      const quick = await stampOfPage();
      wait(1_900);
      expect((await post(phoneOf(1), quick)).statusCode).toBe(303);
      const slow = await stampOfPage();
      wait(2_000);
      expect((await post(phoneOf(2), slow)).statusCode).toBe(303);
      // A stamp altered (a page served 10 s before, its time says), or none: stored as any
      // sign-up, and not flagged for it.
      const [served, signature] = (await stampOfPage()).split('.');
      expect((await post(phoneOf(3), `${Number(served) - 10_000}.${signature}`)).statusCode).toBe(
        303,
      );
      expect((await postForm(app, { fields: { ...values, phone: phoneOf(4) } })).statusCode).toBe(
        303,
      );

      const stored = await rows();
      expect(stored.map((row) => row.phone)).toEqual([1, 2, 3, 4].map(phoneOf));
      expect(stored.map((row) => row.served_at !== null)).toEqual([true, true, false, false]);
      expect(await flags()).toEqual([
        { registration_id: stored[0]?.id, flag: 'fast', other_id: null },
      ]);
    });

    it('sent by the page’s script to the API flags a sign-up sent within 2 s as fast', async () => {
      const { app, rows, flags, stampOfPage, wait } = await stampingApp();
      const post = (phone: string, stamp: string | undefined) =>
        app.inject({
          method: 'POST',
          url: '/api/external-register',
          payload: {
            ...buildPayload(
              { ...values, phone },
              { packageName: 'premium_reco', marketingId: '42' },
            ),
            ...(stamp !== undefined && { [formStampField]: stamp }),
          },
        });

      const quick = await stampOfPage();
      wait(500);
      expect((await post(phoneOf(1), quick)).statusCode).toBe(201);
      const slow = await stampOfPage();
      wait(30_000);
      expect((await post(phoneOf(2), slow)).statusCode).toBe(201);
      expect((await post(phoneOf(3), 'not a stamp')).statusCode).toBe(201);
      expect((await post(phoneOf(4), undefined)).statusCode).toBe(201);

      const stored = await rows();
      expect(stored).toHaveLength(4);
      expect(await flags()).toEqual([
        { registration_id: stored[0]?.id, flag: 'fast', other_id: null },
      ]);
    });
  });
});

describe('on SQLite, when the server cannot answer', () => {
  it('sheds a form post like the API while the event loop lags: 503, values kept', async () => {
    const { app, rows } = await buildTestApp(sqliteBackend, {}, { maxEventLoopDelay: 200 });
    const deadline = Date.now() + 5_000;
    while (!app.isUnderPressure() && Date.now() < deadline) {
      const until = Date.now() + 400;
      while (Date.now() < until) {
        // Busy: the event loop lags, as under a burst.
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    const shed = await postForm(app);
    expect(shed.statusCode).toBe(503);
    expect(shed.headers['retry-after']).toBe(String(retryAfterSeconds));
    expect(shed.body).toContain(shown({ values, error: ar.errorTooManyRequests }));
    expect(await rows()).toHaveLength(0);
  });

  it('answers a database out of reach with the page: 503, values kept', async () => {
    const { app, databaseUrl, rows } = await buildTestApp(sqliteBackend, sampleBrandEnv);
    const holder = new SqliteDatabase(databaseUrl.slice('sqlite:'.length));
    onTestFinished(() => void holder.close());
    holder.exec('begin immediate');
    const refused = await postForm(app);
    expect(refused.statusCode).toBe(503);
    expect(refused.body).toContain(shown({ values, error: arForm.errorGeneric }));
    expect(fixtureBrand(refused.body)).toMatchObject(provider);
    holder.exec('rollback');
    expect(await rows()).toHaveLength(0);
  }, 15_000);
});
