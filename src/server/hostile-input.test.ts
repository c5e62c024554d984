import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arForm } from '../domain/catalogue/form';
import { ar } from '../domain/catalogue/shared';
import { nameMaxLength } from '../domain/form-fields';
import { buildNotes } from '../domain/notes';
import { packageKeys } from '../domain/packages';
import {
  notesMaxLength,
  registrationSchema,
  type RegistrationPayload,
} from '../domain/registration';
import { buildTestApp, describeOnBackends, testBackends } from '../../testing/server-test-helpers';

// Property-based: fast-check generates the bodies from a fixed seed, so a failure replays
// exactly. Every body goes through the whole HTTP pipeline (app.inject) of one app per test.
const seed = 20_250_301;
const invalidCount = 10_000;
const validCount = 1_000;
const batchSize = 250;
const bodyLimit = 16 * 1024;
const url = '/api/external-register';
const refusalTexts: string[] = [arForm.errorInvalid, ar.errorBadRequest];
// The rate limit is tested elsewhere; here it would only turn refusals into 429s.
const env = { RATE_LIMIT_PER_MINUTE: '10000000' };

/** One generated request: what kind of hostility it holds, and the raw body bytes or text. */
interface Hostile {
  kind: string;
  body: string | Uint8Array;
}

const fromCodes = (first: number, last: number) =>
  fc.integer({ min: first, max: last }).map((code) => String.fromCharCode(code));
const arabicLetter = fromCodes(0x0621, 0x064a);
const digit = fromCodes(0x30, 0x39);
const latinLetter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ');
const arabicWord = fc.string({ unit: arabicLetter, minLength: 1, maxLength: 12 });
const latinWord = fc.string({ unit: latinLetter, minLength: 1, maxLength: 10 });
const emoji = fc.constantFrom('😀', '🌙', '👩🏽‍💻', '🇸🇦', '❤️', '🤲🏼', '✨');
// RLM, LRM, the Arabic letter mark and the bidi embeddings and isolates people paste.
const directionMark = fc.constantFrom('\u200f', '\u200e', '\u061c', '\u202b', '\u202c', '\u2067');
// What String.prototype.trim (and so the schema) takes off both ends.
const padding = fc.string({
  unit: fc.constantFrom(' ', '\u00a0', '\t', '\n', '\u3000', '\ufeff'),
  maxLength: 3,
});
const alphanumeric = fc.oneof(latinLetter, digit);

const phone = fc.string({ unit: digit, minLength: 8, maxLength: 8 }).map((rest) => `9665${rest}`);

const nameWord = fc.oneof(
  { arbitrary: arabicWord, weight: 6 },
  { arbitrary: fc.tuple(directionMark, arabicWord).map(([mark, word]) => mark + word), weight: 1 },
  { arbitrary: latinWord, weight: 1 },
  { arbitrary: emoji, weight: 1 },
);
// Exactly nameMaxLength UTF-16 units once trimmed: letters, spaces and marks inside, a letter
// first and a letter or an emoji (two units) last.
const nameAtLimit = fc
  .tuple(
    fc.string({
      unit: fc.oneof({ arbitrary: arabicLetter, weight: 8 }, fc.constant(' '), directionMark),
      minLength: nameMaxLength,
      maxLength: nameMaxLength,
    }),
    fc.boolean(),
  )
  .map(([middle, withEmoji]) =>
    withEmoji
      ? `م${middle.slice(1, nameMaxLength - 2)}🌙`
      : `م${middle.slice(1, nameMaxLength - 1)}ة`,
  );
const name = fc
  .tuple(
    padding,
    fc.oneof(
      {
        arbitrary: fc.array(nameWord, { minLength: 1, maxLength: 6 }).map((w) => w.join(' ')),
        weight: 4,
      },
      { arbitrary: nameAtLimit, weight: 1 },
    ),
    padding,
  )
  .map(([before, core, after]) => before + core + after);

const email = fc.oneof(
  fc.constant(undefined),
  fc.constant(''),
  fc
    .tuple(fc.constantFrom('', ' '), fc.emailAddress({ size: 'small' }))
    .map(([space, address]) => space + address + space),
);
const routeNotes = fc
  .record({
    packageName: fc.option(fc.oneof(fc.constantFrom(...packageKeys), arabicWord, latinWord), {
      nil: undefined,
    }),
    marketingId: fc.option(fc.string({ unit: alphanumeric, minLength: 1, maxLength: 10 }), {
      nil: undefined,
    }),
  })
  .map(buildNotes);
const notes = fc.oneof(
  { arbitrary: routeNotes, weight: 4 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 120 }), weight: 1 },
);
const marketingId = fc.option(
  fc.oneof(
    fc.string({
      unit: fc.oneof(alphanumeric, fc.constantFrom('_', '.', '-')),
      minLength: 1,
      maxLength: 64,
    }),
    fc.nat(),
  ),
  { nil: undefined },
);

const isValid = (body: unknown) => registrationSchema.safeParse(body).success;

/** A body the schema accepts: Arabic, emoji, direction marks, names at the limit. */
const validBody: fc.Arbitrary<RegistrationPayload> = fc
  .record(
    { name, email, phone, notes, marketing_id: marketingId },
    { requiredKeys: ['name', 'phone', 'notes'] },
  )
  .map((body) => JSON.parse(JSON.stringify(body)) as RegistrationPayload)
  .filter(isValid);

const fields = ['name', 'email', 'phone', 'notes', 'marketing_id'] as const;
const json = (kind: string) => (value: unknown) => ({ kind, body: JSON.stringify(value) });
const withField = (body: RegistrationPayload, field: string, value: unknown) => ({
  ...body,
  [field]: value,
});

const wrongType = fc
  .tuple(
    validBody,
    fc.constantFrom(...fields),
    fc.oneof(
      fc.integer({ min: -1e6, max: -1 }),
      fc.double({ noNaN: true }).filter((n) => !Number.isInteger(n)),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
    ),
  )
  .map(([body, field, value]) => withField(body, field, value))
  .map(json('wrong type'));

const overlong = fc
  .oneof(
    fc
      .tuple(
        validBody,
        fc.string({ unit: arabicLetter, minLength: nameMaxLength + 1, maxLength: 300 }),
      )
      .map(([body, long]) => withField(body, 'name', long)),
    fc
      .tuple(validBody, fc.integer({ min: 245, max: 400 }))
      .map(([body, length]) => withField(body, 'email', `${'a'.repeat(length)}@example.com`)),
    fc
      .tuple(
        validBody,
        fc.string({ unit: arabicLetter, minLength: notesMaxLength + 1, maxLength: 1500 }),
      )
      .map(([body, long]) => withField(body, 'notes', long)),
    fc
      .tuple(validBody, fc.string({ unit: alphanumeric, minLength: 65, maxLength: 120 }))
      .map(([body, long]) => withField(body, 'marketing_id', long)),
    fc
      .tuple(validBody, fc.string({ unit: digit, minLength: 9, maxLength: 30 }))
      .map(([body, digits]) => withField(body, 'phone', `9665${digits}`)),
  )
  .map(json('overlong string'));

const empty = fc
  .oneof(
    fc.tuple(validBody, padding).map(([body, blank]) => withField(body, 'name', blank)),
    validBody.map((body) => withField(body, 'phone', '')),
    validBody.map((body) => withField(body, 'marketing_id', '')),
  )
  .map(json('empty string'));

const toArabicDigits = (text: string) =>
  text.replace(/\d/g, (d) => String.fromCharCode(0x0660 + Number(d)));
const toFullwidthDigits = (text: string) =>
  text.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d)));
const badPhone = fc
  .tuple(
    validBody,
    fc.oneof(
      fc.string({ unit: digit, maxLength: 16 }),
      phone.map(toArabicDigits),
      phone.map(toFullwidthDigits),
      phone.map((p) => `+${p}`),
      phone.map((p) => `00${p}`),
      phone.map((p) => `0${p.slice(3)}`),
      phone.map((p) => `${p.slice(0, 4)} ${p.slice(4)}`),
      phone.map((p) => `${p.slice(0, 4)}-${p.slice(4)}`),
      phone.map((p) => `${p}\n`),
      phone.map((p) => ` ${p}`),
      phone.map((p) => `\u200e${p}\u200f`),
      phone.map((p) => `${p}\u0000`),
      phone.map((p) => `${p.slice(0, 6)}\u200b${p.slice(6)}`),
      fc.string({ unit: 'grapheme', maxLength: 14 }),
    ),
  )
  .map(([body, bad]) => withField(body, 'phone', bad))
  .map(json('bad phone'));

const missingKey = fc
  .tuple(validBody, fc.subarray(['name', 'phone', 'notes'], { minLength: 1 }))
  .map(([body, keys]) =>
    Object.fromEntries(Object.entries(body).filter(([k]) => !keys.includes(k))),
  )
  .map(json('missing key'));

const unknownKey = fc
  .tuple(
    validBody,
    fc.oneof(
      fc.string({ minLength: 1, maxLength: 20 }),
      fc.constantFrom('admin', 'isAdmin', 'role', 'id', 'created_at', 'source', 'package_key'),
      fc.constantFrom(
        'Name',
        'PHONE',
        'name ',
        ' phone',
        '\u200fname',
        'phone\u0000',
        'e\u200bmail',
      ),
    ),
    fc.jsonValue({ maxDepth: 2 }),
  )
  .filter(([, key]) => !(fields as readonly string[]).includes(key))
  .map(([body, key, value]) => ({ ...body, [key]: value }))
  .map(json('unknown key'));

// Raw JSON text: JSON.stringify never writes these keys the way an attacker does.
const prototypeKey = fc
  .tuple(
    validBody,
    fc.constantFrom(
      '"__proto__"',
      '"\\u005f_proto__"',
      '"__pro\\u0074o__"',
      '"constructor"',
      '"\\u0063onstructor"',
    ),
    fc.constantFrom(
      '{"isAdmin":true}',
      '{"prototype":{"isAdmin":true}}',
      '{"toString":"x","polluted":1}',
      'null',
      '1',
      '"x"',
      '[]',
    ),
    fc.constantFrom('first', 'last', 'nested'),
  )
  .map(([body, key, value, where]) => {
    const text = JSON.stringify(body);
    if (where === 'first') return text.replace('{', `{${key}:${value},`);
    if (where === 'last') return `${text.slice(0, -1)},${key}:${value}}`;
    return text.replace('"name":', `"name":{${key}:${value}},"ignored":`);
  })
  .map((body) => ({ kind: '__proto__ / constructor key', body }));

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};
const invalidJson = fc
  .oneof(
    validBody
      .map((body) => JSON.stringify(body))
      .chain((text) => fc.nat({ max: text.length - 1 }).map((end) => text.slice(0, end))),
    validBody.map((body) => `${JSON.stringify(body).slice(0, -1)},}`),
    validBody.map((body) => JSON.stringify(body).replaceAll('"', "'")),
    validBody.map((body) => JSON.stringify(body).replace(/"(\w+)":/g, '$1:')),
    validBody.map((body) => `${JSON.stringify(body)}//`),
    validBody.map((body) => `${JSON.stringify(body)}}`),
    validBody.map((body) => `${JSON.stringify(body)}\u0000`),
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.constantFrom('', ' ', '\ufeff', '{', 'NaN', 'undefined', '{"name":}', '{"a":1,}', "{'a':1}"),
  )
  .filter((text) => !parses(text.replace(/^\ufeff/, '')))
  .map((body) => ({ kind: 'invalid JSON', body }));

const notAnObject = fc
  .oneof(
    fc
      .jsonValue({ maxDepth: 2 })
      .filter((v) => v === null || typeof v !== 'object' || Array.isArray(v)),
    validBody.map((body) => [body]),
    phone,
  )
  .map(json('not an object'));

const control = fc.oneof(fromCodes(0x00, 0x1f), fromCodes(0x7f, 0x9f));
const loneSurrogate = fromCodes(0xd800, 0xdfff);
const insertAt = (text: string, at: number, inserted: string) => {
  const i = at % (text.length + 1);
  return text.slice(0, i) + inserted + text.slice(i);
};
const encoder = new TextEncoder();
const oddUnicode = fc.oneof(
  fc
    .tuple(validBody, fc.constantFrom('name', 'notes'), fc.oneof(control, loneSurrogate), fc.nat())
    .map(([body, field, odd, at]) => withField(body, field, insertAt(body[field], at, odd)))
    .map(json('odd Unicode: control or lone surrogate')),
  fc
    .tuple(validBody, fc.oneof(directionMark, control, loneSurrogate, arabicLetter), fc.nat())
    .map(([body, odd, at]) => withField(body, 'email', insertAt('sara@example.com', at, odd)))
    .map(json('odd Unicode: e-mail')),
  fc
    .tuple(
      validBody,
      fc.oneof(directionMark, control, loneSurrogate, fc.constant('\u200b')),
      fc.nat(),
    )
    .map(([body, odd, at]) => withField(body, 'phone', insertAt(body.phone, at, odd)))
    .map(json('odd Unicode: phone')),
  // Bytes that are not UTF-8 at all, inside the phone: decoded as U+FFFD, so still refused.
  fc
    .tuple(
      validBody,
      fc.uint8Array({ minLength: 1, maxLength: 4 }).map((b) => b.map((x) => x | 0x80)),
    )
    .map(([body, bytes]): Hostile => {
      const [before, after] = JSON.stringify({ ...body, phone: '\u0001' }).split('\\u0001');
      return {
        kind: 'odd Unicode: invalid UTF-8',
        body: new Uint8Array([...encoder.encode(before), ...bytes, ...encoder.encode(after)]),
      };
    }),
);

const oversize = fc
  .tuple(validBody, fc.integer({ min: bodyLimit + 1, max: bodyLimit + 2000 }))
  .map(([body, length]) => {
    const text = JSON.stringify({ ...body, notes: '' });
    return {
      kind: 'over the body limit',
      body: text.replace('"notes":""', `"notes":"${'n'.repeat(length - text.length)}"`),
    };
  });

/** What the server would accept: the oracle that keeps a generator mistake from passing. */
function accepted({ body }: Hostile): boolean {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  if (bytes.length > bodyLimit) return false;
  const text = new TextDecoder().decode(bytes).replace(/^\ufeff/, '');
  let value: unknown;
  try {
    value = JSON.parse(text, (key, v: unknown) => {
      const poisoned =
        key === '__proto__' ||
        (key === 'constructor' && typeof v === 'object' && v !== null && 'prototype' in v);
      if (poisoned) throw new Error('poisoned');
      return v;
    });
  } catch {
    return false;
  }
  return isValid(value);
}

const hostileBody: fc.Arbitrary<Hostile> = fc
  .oneof(
    ...[
      wrongType,
      overlong,
      empty,
      badPhone,
      missingKey,
      unknownKey,
      prototypeKey,
      invalidJson,
      notAnObject,
    ].map((arbitrary) => ({ arbitrary, weight: 20 })),
    { arbitrary: oddUnicode, weight: 40 },
    // Few: each is 16 KiB, and one size is enough to show the limit holds among the rest.
    { arbitrary: oversize, weight: 1 },
  )
  .filter((hostile) => !accepted(hostile));

const tally = (counts: Record<string, number>, key: string | number) => {
  counts[key] = (counts[key] ?? 0) + 1;
};
const preview = (body: string | Uint8Array) =>
  JSON.stringify(
    typeof body === 'string'
      ? body.slice(0, 200)
      : `bytes ${Buffer.from(body).toString('hex').slice(0, 200)}`,
  );
const arabic = /[\u0600-\u06ff]/;
// Not inside a longer number: a timestamp or a response time may hold those twelve digits.
const phoneLike = /(?<!\d)9665\d{8}(?!\d)/;

// A refusal never reaches the database, so one backend (SQLite) is enough for these.
describe('hostile input', () => {
  it(`refuses ${invalidCount} generated invalid bodies: no 5xx, Arabic JSON, no row`, async () => {
    const backend = testBackends[0]!;
    const { app, rows, log } = await buildTestApp(backend, env);
    const bodies = fc.sample(hostileBody, { seed, numRuns: invalidCount });
    const statuses: Record<string, number> = {};
    const kinds: Record<string, number> = {};
    const failures: string[] = [];

    for (let start = 0; start < bodies.length; start += batchSize) {
      const batch = bodies.slice(start, start + batchSize);
      const responses = await Promise.all(
        batch.map(({ body }) =>
          app.inject({
            method: 'POST',
            url,
            headers: { 'content-type': 'application/json' },
            payload: typeof body === 'string' ? body : Buffer.from(body),
          }),
        ),
      );
      responses.forEach((response, i) => {
        const { kind, body } = batch[i]!;
        tally(statuses, response.statusCode);
        tally(kinds, kind);
        let error: unknown;
        try {
          error = response.json<{ error?: unknown }>().error;
        } catch {
          error = undefined;
        }
        const refused = response.statusCode >= 400 && response.statusCode < 500;
        const json = response.headers['content-type'] === 'application/json; charset=utf-8';
        if (!refused || !json || !refusalTexts.includes(error as string)) {
          failures.push(
            `${kind}: ${response.statusCode} ${response.body.slice(0, 80)} for ${preview(body)}`,
          );
        }
      });
    }

    const stored = (await rows()).length;
    const lines = log().split('\n');
    const leaks = lines.filter((line) => arabic.test(line) || phoneLike.test(line)).length;
    console.log(
      `[${backend.name}] invalid bodies: ${bodies.length} sent, statuses ${JSON.stringify(statuses)}, ` +
        `rows written ${stored}, log lines ${lines.length} (with a phone or Arabic text: ${leaks})\n` +
        `  kinds ${JSON.stringify(kinds)}`,
    );
    expect(failures.slice(0, 10)).toEqual([]);
    expect(Object.keys(statuses).filter((status) => Number(status) >= 500)).toEqual([]);
    expect(stored).toBe(0);
    expect(leaks).toBe(0);
  }, 120_000);
});

describeOnBackends('valid input on $name', (backend) => {
  it(`stores ${validCount} generated valid bodies and reads each back as parsed`, async () => {
    const { app, rows, log } = await buildTestApp(backend, env);
    // One phone each: the 24-hour rule would otherwise answer a repeat with the first's id.
    const bodies = fc.sample(
      fc.uniqueArray(validBody, {
        minLength: validCount,
        maxLength: validCount,
        selector: (b) => b.phone,
      }),
      { seed, numRuns: 1 },
    )[0]!;
    const statuses: Record<string, number> = {};
    const expected = new Map<string, ReturnType<typeof registrationSchema.parse>>();

    for (let start = 0; start < bodies.length; start += batchSize) {
      const batch = bodies.slice(start, start + batchSize);
      const responses = await Promise.all(
        batch.map((body) =>
          app.inject({
            method: 'POST',
            url,
            headers: { 'content-type': 'application/json; charset=utf-8' },
            payload: JSON.stringify(body),
          }),
        ),
      );
      responses.forEach((response, i) => {
        tally(statuses, response.statusCode);
        if (response.statusCode === 201) {
          expected.set(response.json<{ id: string }>().id, registrationSchema.parse(batch[i]));
        }
      });
    }

    const stored = await rows();
    const readBack = stored.map(({ id, name, email, phone, notes, marketing_id }) => ({
      id,
      name,
      email,
      phone,
      notes,
      marketing_id,
    }));
    const sent = [...expected].map(([id, parsed]) => ({
      id,
      name: parsed.name,
      email: parsed.email || null,
      phone: parsed.phone,
      notes: parsed.notes,
      marketing_id: parsed.marketing_id ?? null,
    }));
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    const sentById = new Map(sent.map((row) => [row.id, JSON.stringify(row)]));
    const identical = readBack.filter((row) => sentById.get(row.id) === JSON.stringify(row));

    // A leak is a log line holding a phone, an e-mail or a name that was sent (a name of one to
    // three characters cannot be told from ordinary log text, so any Arabic letter counts too).
    const secrets = bodies.flatMap((body) => {
      const parsed = registrationSchema.parse(body);
      return [parsed.phone, parsed.email ?? '', parsed.name]
        .filter((secret) => secret.length >= 4)
        .flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]);
    });
    const lines = log().split('\n');
    const leaks = lines.filter(
      (line) => arabic.test(line) || phoneLike.test(line) || secrets.some((s) => line.includes(s)),
    ).length;
    const atLimit = bodies.filter((b) => b.name.trim().length === nameMaxLength).length;
    const withEmoji = bodies.filter((b) => /\p{Extended_Pictographic}/u.test(b.name)).length;
    const withMarks = bodies.filter((b) =>
      /[\u200e\u200f\u061c\u202b\u202c\u2067]/.test(b.name),
    ).length;
    console.log(
      `[${backend.name}] valid bodies: ${bodies.length} sent (${atLimit} names at ${nameMaxLength} ` +
        `characters, ${withEmoji} with emoji, ${withMarks} with direction marks), statuses ` +
        `${JSON.stringify(statuses)}, rows ${stored.length}, read back identical ` +
        `${identical.length}, log lines with a name, phone or e-mail: ${leaks} of ${lines.length}`,
    );
    expect(statuses).toEqual({ 201: validCount });
    expect(readBack.sort(byId)).toEqual(sent.sort(byId));
    expect(atLimit).toBeGreaterThan(0);
    expect(leaks).toBe(0);
  }, 120_000);
});
