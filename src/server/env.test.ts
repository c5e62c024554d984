import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ar } from '../domain/catalogue/shared';
import { sampleBrand } from '../../testing/sample-brand';
import { loadConfig, loadMailSettings } from './env';

describe('loadConfig', () => {
  it('has a default for everything', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      database: { kind: 'sqlite', file: resolve('data/registrations.db') },
      redisUrl: undefined,
      corsOrigins: [],
      trustProxy: false,
      rateLimitPerMinute: 120,
      logLevel: 'info',
      siteUrl: undefined,
      publicUrl: undefined,
      loadShedDelayMs: 200,
      loadShedCommitWaitMs: 1_000,
      distDir: resolve('dist'),
      brand: { name: ar.brandDefault, logo: undefined, licence: undefined },
    });
  });

  it.each([
    ['https://tasjeel.example', 'https://tasjeel.example'],
    ['https://tasjeel.example/', 'https://tasjeel.example'],
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000'],
  ])('reads PUBLIC_URL=%s as the origin %s', (value, origin) => {
    expect(loadConfig({ PUBLIC_URL: value }).publicUrl).toBe(origin);
  });

  it('reads every variable, and treats an empty one as unset', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'sqlite::memory:',
      CORS_ORIGINS: 'https://a.example, http://localhost:5173',
      TRUST_PROXY: '1',
      RATE_LIMIT_PER_MINUTE: '30',
      LOG_LEVEL: 'warn',
      SITE_URL: '',
      DIST_DIR: 'build/dist',
      LOAD_SHED_DELAY_MS: '0',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      database: { kind: 'sqlite', file: ':memory:' },
      corsOrigins: ['https://a.example', 'http://localhost:5173'],
      trustProxy: 1,
      rateLimitPerMinute: 30,
      logLevel: 'warn',
      siteUrl: undefined,
      distDir: resolve('build/dist'),
      loadShedDelayMs: 0,
      loadShedCommitWaitMs: 1_000,
    });
  });

  it.each(['postgres', 'postgresql'])(
    'reads a %s:// URL, its pool size and REDIS_URL',
    (scheme) => {
      const url = `${scheme}://tasjeel:secret@db.internal:5432/tasjeel?sslmode=require`;
      expect(loadConfig({ DATABASE_URL: url })).toMatchObject({
        database: { kind: 'postgres', url, poolSize: 10 },
      });
      const config = loadConfig({
        DATABASE_URL: url,
        DATABASE_POOL_SIZE: '25',
        REDIS_URL: 'redis://cache.internal:6379/2',
      });
      expect(config.database).toEqual({ kind: 'postgres', url, poolSize: 25 });
      expect(config.redisUrl).toBe('redis://cache.internal:6379/2');
    },
  );

  it('never quotes a refused DATABASE_URL, which may hold a password', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://tasjeel:s3cret@db/tasjeel' })).toThrow(
      /^(?![^]*s3cret)[^]*DATABASE_URL/,
    );
  });

  it.each([
    ['true', true],
    ['false', false],
    ['10.0.0.1, 192.168.0.0/16', ['10.0.0.1', '192.168.0.0/16']],
  ])('reads TRUST_PROXY=%s', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://localhost/tasjeel'],
    ['DATABASE_URL', 'postgres://[db/tasjeel'],
    ['DATABASE_URL', 'sqlite:'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', 'ten'],
    ['REDIS_URL', 'localhost:6379'],
    ['REDIS_URL', 'http://cache.internal'],
    ['CORS_ORIGINS', '*'],
    ['CORS_ORIGINS', 'null'],
    ['CORS_ORIGINS', 'https://a.example/'],
    ['CORS_ORIGINS', 'a.example'],
    ['TRUST_PROXY', 'yes'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['LOG_LEVEL', 'verbose'],
    ['SITE_URL', 'javascript:alert(1)'],
    ['PUBLIC_URL', 'tasjeel.example'],
    ['PUBLIC_URL', 'ftp://tasjeel.example'],
    ['PUBLIC_URL', 'https://tasjeel.example/register'],
    ['PUBLIC_URL', 'https://tasjeel.example/?a=1'],
    ['PUBLIC_URL', 'https://user:pass@tasjeel.example'],
    ['BRAND_NAME', '   '],
    ['BRAND_NAME', 'x'.repeat(81)],
    ['BRAND_NAME', 'شركة\nالمثال'],
    ['BRAND_LICENCE', 'ترخيص 08126-37'],
    ['BRAND_LICENCE', '08126--37'],
    ['WEBHOOK_URL', 'ftp://crm.example/hooks'],
    ['WEBHOOK_SECRET', 'not-a-secret'],
    ['WEBHOOK_SECRET', `whsec_${Buffer.alloc(8).toString('base64')}`],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_RETRY_DELAYS', '5s,soon'],
    ['WEBHOOK_RETRY_DELAYS', '30s*0'],
    ['SMTP_URL', 'http://relay.example'],
    ['SMTP_URL', 'relay.example:587'],
    ['SMTP_URL', 'smtp://'],
    ['MAIL_FROM', 'no-reply'],
    ['MAIL_FROM', 'a@example.com, b@example.com'],
    ['MAIL_RETRY_DELAYS', '15s,later'],
    ['SUMMARIES_TIME_ZONE', 'Riyadh'],
    ['SUMMARIES_TIME_ZONE', '+03:00'],
    ['WEEKLY_SUMMARY_AT', '08:00'],
    ['WEEKLY_SUMMARY_AT', 'sunday 8am'],
    ['WEEKLY_SUMMARY_AT', 'الأحد 08:00'],
    ['REVIEW_DIGEST_AT', '24:00'],
    ['REVIEW_DIGEST_AT', 'monday 08:00'],
    ['MARKETER_AUTH_JWKS_URL', 'file:///etc/jwks.json'],
    ['MARKETER_AUTH_JWKS_URL', 'http://platform.example/.well-known/jwks.json'],
    ['MARKETER_AUTH_JWKS_URL', 'http://203.0.113.7/jwks.json'],
    ['MARKETER_AUTH_MAX_AGE', 'forever'],
    ['MARKETER_AUTH_MAX_AGE', '0h'],
    ['WEBHOOK_URL', 'http://crm.example/hooks'],
    ['WEBHOOK_URL', 'http://[2001:db8::1]/hooks'],
    ['WEBHOOK_URL', 'http://localhost.evil.example/hooks'],
    ['MARKETER_AUTH_SECRET', 'too-short'],
    ['MARKETER_AUTH_COOKIE', 'session; Path=/'],
    ['PRIVACY_URL', 'javascript:alert(1)'],
    ['PRIVACY_URL', '/privacy'],
    ['RETENTION_DAYS', '0'],
    ['RETENTION_DAYS', '1.5'],
    ['RETENTION_DAYS', 'forever'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`Invalid environment:\\n  ${name}`),
    );
  });

  it('reads the webhooks, with the Standard Webhooks schedule by default', () => {
    expect(loadConfig({}).webhooks).toBeUndefined();
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(
      loadConfig({ WEBHOOK_URL: 'https://crm.example/hooks', WEBHOOK_SECRET: secret }),
    ).toMatchObject({
      webhooks: {
        url: 'https://crm.example/hooks',
        secrets: [secret],
        timeoutMs: 10_000,
        retryDelaysMs: [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000].map((s) => s * 1_000),
      },
    });
    expect(
      loadConfig({
        WEBHOOK_URL: 'https://crm.example/hooks',
        WEBHOOK_SECRET: secret,
        WEBHOOK_RETRY_DELAYS: '250ms, 2s,1m',
      }).webhooks?.retryDelaysMs,
    ).toEqual([250, 2_000, 60_000]);
  });

  it('reads the e-mail relay, retrying every 30 s at most for the first ten minutes by default', () => {
    expect(loadConfig({}).mail).toBeUndefined();
    const mail = loadConfig({
      SMTP_URL: 'smtps://tasjeel:secret@smtp.example:465',
      MAIL_FROM: '"تسجيل" <no-reply@tasjeel.example>',
      PUBLIC_URL: 'https://tasjeel.example',
    }).mail;
    expect(mail).toMatchObject({
      url: 'smtps://tasjeel:secret@smtp.example:465',
      from: '"تسجيل" <no-reply@tasjeel.example>',
    });
    let elapsedMs = 0;
    for (const delayMs of mail!.retryDelaysMs) {
      if (elapsedMs < 10 * 60_000) expect(delayMs).toBeLessThanOrEqual(30_000);
      elapsedMs += delayMs;
    }
    expect(elapsedMs).toBeGreaterThan(24 * 3_600_000);
    expect(
      loadConfig({
        SMTP_URL: 'smtp://smtp.example:587',
        MAIL_FROM: 'no-reply@tasjeel.example',
        PUBLIC_URL: 'https://tasjeel.example',
        MAIL_RETRY_DELAYS: '100ms*3, 1m',
      }).mail?.retryDelaysMs,
    ).toEqual([100, 100, 100, 60_000]);
  });

  it('sends the summaries on Sunday at 08:00 and the review digest at 08:00, Riyadh time, by default', () => {
    expect(loadConfig({}).summaries).toEqual({
      timeZone: 'Asia/Riyadh',
      weeklyAt: { weekday: 0, minutes: 8 * 60 },
      reviewAt: { minutes: 8 * 60 },
    });
    expect(
      loadConfig({
        SUMMARIES_TIME_ZONE: 'Africa/Cairo',
        WEEKLY_SUMMARY_AT: 'Monday 7:30',
        REVIEW_DIGEST_AT: '17:05',
      }).summaries,
    ).toEqual({
      timeZone: 'Africa/Cairo',
      weeklyAt: { weekday: 1, minutes: 7 * 60 + 30 },
      reviewAt: { minutes: 17 * 60 + 5 },
    });
  });

  it("gives a command line the e-mails' settings only with SMTP_URL, MAIL_FROM and PUBLIC_URL", () => {
    const mail = {
      SMTP_URL: 'smtp://smtp.example:587',
      MAIL_FROM: 'no-reply@tasjeel.example',
      PUBLIC_URL: 'https://tasjeel.example/',
    };
    expect(loadMailSettings({})).toBeUndefined();
    expect(loadMailSettings({ ...mail, PUBLIC_URL: '' })).toBeUndefined();
    // A setting of the server alone is not read.
    expect(loadMailSettings({ ...mail, PORT: 'not a port', BRAND_LICENCE: '08126-37' })).toEqual({
      publicUrl: 'https://tasjeel.example',
      brand: {
        name: ar.brandDefault,
        logo: undefined,
        licence: '08126-37',
        privacyUrl: undefined,
        privacyVersion: undefined,
      },
      summaries: loadConfig({}).summaries,
    });
    expect(() => loadMailSettings({ ...mail, REVIEW_DIGEST_AT: 'noon' })).toThrow(
      /^Invalid environment:\n {2}REVIEW_DIGEST_AT: /,
    );
  });

  it('refuses SMTP_URL without MAIL_FROM or PUBLIC_URL, and never quotes the relay password', () => {
    let message = '';
    try {
      loadConfig({ SMTP_URL: 'smtp://tasjeel:hunter2-secret@smtp.example:587' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /^Invalid environment:\n {2}MAIL_FROM: is required when SMTP_URL is set\n {2}PUBLIC_URL: is required when SMTP_URL is set/,
    );
    expect(message).not.toContain('hunter2');
    try {
      loadConfig({ SMTP_URL: 'http://tasjeel:hunter2-secret@smtp.example' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Invalid environment:\n {2}SMTP_URL: /);
    expect(message).not.toContain('hunter2');
  });

  it('reads two webhook secrets, the new one first, and never quotes one it refuses', () => {
    const [next, previous] = [7, 8].map(
      (byte) => `whsec_${Buffer.alloc(32, byte).toString('base64')}`,
    );
    const url = 'https://crm.example/hooks';
    expect(
      loadConfig({ WEBHOOK_URL: url, WEBHOOK_SECRET: `${next}, ${previous}` }).webhooks?.secrets,
    ).toEqual([next, previous]);
    const short = `whsec_${Buffer.alloc(8, 9).toString('base64')}`;
    for (const value of [`${next},${short}`, `${next},${previous},${next}`, `${next},`]) {
      let message = '';
      try {
        loadConfig({ WEBHOOK_URL: url, WEBHOOK_SECRET: value });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^Invalid environment:\n {2}WEBHOOK_SECRET: /);
      for (const secret of [next, previous, short]) {
        expect(message).not.toContain(secret?.slice('whsec_'.length, 20));
      }
    }
  });

  it.each([
    'http://localhost:5678/hooks',
    'http://app.localhost/hooks',
    'http://127.0.0.1:5678/hooks',
    'http://[::1]:5678/hooks',
    'http://10.0.0.5/hooks',
    'http://172.20.1.2/hooks',
    'http://192.168.1.10/hooks',
    'http://[fd00::5]/hooks',
    'http://n8n:5678/webhook/tasjeel',
    'https://crm.example/hooks',
  ])('takes %s, which crosses no public network or is https, for both URLs', (url) => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(loadConfig({ WEBHOOK_URL: url, WEBHOOK_SECRET: secret }).webhooks?.url).toBe(url);
    expect(loadConfig({ MARKETER_AUTH_JWKS_URL: url }).marketerAuth?.keys).toEqual({
      kind: 'jwks',
      url,
    });
  });

  it("reads the marketers' token settings; without keys the numbers are off", () => {
    expect(loadConfig({ MARKETER_AUTH_COOKIE: 'session' }).marketerAuth).toBeUndefined();
    const jwksUrl = 'https://platform.example/.well-known/jwks.json';
    expect(loadConfig({ MARKETER_AUTH_JWKS_URL: jwksUrl }).marketerAuth).toEqual({
      keys: { kind: 'jwks', url: jwksUrl },
      issuer: undefined,
      audience: undefined,
      storageKey: 'token',
      cookie: undefined,
      maxAgeMs: 24 * 3_600_000,
      teamClaim: 'team',
      programRoles: ['admin'],
      checksPerMinute: 120,
    });
    const secret = 'x'.repeat(32);
    expect(
      loadConfig({
        MARKETER_AUTH_SECRET: secret,
        MARKETER_AUTH_ISSUER: 'https://platform.example',
        MARKETER_AUTH_AUDIENCE: 'tasjeel',
        MARKETER_AUTH_STORAGE_KEY: 'accessToken',
        MARKETER_AUTH_COOKIE: 'platform_session',
        MARKETER_AUTH_MAX_AGE: '8h',
        MARKETER_AUTH_TEAM_CLAIM: 'https://platform.example/team',
        PROGRAM_ROLES: ' admin, marketing_manager ,',
        MARKETER_AUTH_CHECKS_PER_MINUTE: '600',
      }).marketerAuth,
    ).toEqual({
      keys: { kind: 'secret', secret },
      issuer: 'https://platform.example',
      audience: 'tasjeel',
      storageKey: 'accessToken',
      cookie: 'platform_session',
      maxAgeMs: 8 * 3_600_000,
      teamClaim: 'https://platform.example/team',
      programRoles: ['admin', 'marketing_manager'],
      checksPerMinute: 600,
    });
  });

  it('refuses both a JWKS and a shared secret', () => {
    expect(() =>
      loadConfig({
        MARKETER_AUTH_JWKS_URL: 'https://platform.example/.well-known/jwks.json',
        MARKETER_AUTH_SECRET: 'x'.repeat(32),
      }),
    ).toThrow(/MARKETER_AUTH_SECRET: must not be set with MARKETER_AUTH_JWKS_URL/);
  });

  it('reads PRIVACY_URL and PRIVACY_VERSION into the brand and RETENTION_DAYS, all unset by default', () => {
    expect(loadConfig({})).toMatchObject({
      brand: { privacyUrl: undefined, privacyVersion: undefined },
      retentionDays: undefined,
    });
    expect(
      loadConfig({
        PRIVACY_URL: 'https://provider.example/privacy',
        PRIVACY_VERSION: ' 2026-11 ',
        RETENTION_DAYS: '365',
      }),
    ).toMatchObject({
      brand: { privacyUrl: 'https://provider.example/privacy', privacyVersion: '2026-11' },
      retentionDays: 365,
    });
  });

  it.each([
    ['blank', '   '],
    ['two lines', '2026-11\nold'],
    ['too long', 'v'.repeat(41)],
  ])('refuses a PRIVACY_VERSION %s', (_, version) => {
    expect(() =>
      loadConfig({ PRIVACY_URL: 'https://provider.example/privacy', PRIVACY_VERSION: version }),
    ).toThrow(/Invalid environment:\n {2}PRIVACY_VERSION: /);
  });

  it('refuses PRIVACY_VERSION without PRIVACY_URL: a version of no notice', () => {
    expect(() => loadConfig({ PRIVACY_VERSION: '2026-11' })).toThrow(
      /PRIVACY_VERSION: is set without PRIVACY_URL/,
    );
  });

  it('refuses WEBHOOK_URL without WEBHOOK_SECRET', () => {
    expect(() => loadConfig({ WEBHOOK_URL: 'https://crm.example/hooks' })).toThrow(
      /WEBHOOK_SECRET: is required when WEBHOOK_URL is set/,
    );
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'y' })).toThrow(/PORT[^]*LOG_LEVEL/);
  });
});

/** A PNG of the given size: its signature and IHDR chunk (what the reader looks at), then IDAT. */
function png(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.writeUInt8(8, 16);
  const idat = deflateSync(Buffer.alloc(height * (width * 3 + 1)));
  const chunk = Buffer.alloc(8);
  chunk.writeUInt32BE(idat.length, 0);
  chunk.write('IDAT', 4, 'latin1');
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, ihdr, chunk, idat, Buffer.alloc(4)]);
}

describe('the brand variables', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tasjeel-logo-'));
  function file(name: string, content: string | Buffer): string {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  }

  it('reads the name (trimmed) and the licence number', () => {
    const config = loadConfig({ BRAND_NAME: `  ${sampleBrand.name} `, BRAND_LICENCE: '08126-37' });
    expect(config.brand).toEqual({ name: sampleBrand.name, logo: undefined, licence: '08126-37' });
  });

  it('reads an SVG logo with its width and height', () => {
    const { logo } = loadConfig({ BRAND_LOGO: sampleBrand.logo }).brand;
    expect(logo).toMatchObject({ type: 'image/svg+xml', width: 120, height: 40 });
    expect(logo?.body.toString()).toContain('<svg');
  });

  it.each([
    ['a viewBox only', '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 100"/>'],
    [
      'an XML declaration, a comment and px',
      '<?xml version="1.0"?>\n<!-- logo --><svg width="300px" height="100px"></svg>',
    ],
  ])('reads the size of an SVG with %s', (_, svg) => {
    const { logo } = loadConfig({ BRAND_LOGO: file('logo.svg', svg) }).brand;
    expect(logo).toMatchObject({ width: 300, height: 100 });
  });

  it('reads a PNG logo with its width and height', () => {
    const { logo } = loadConfig({ BRAND_LOGO: file('logo.png', png(48, 16)) }).brand;
    expect(logo).toMatchObject({ type: 'image/png', width: 48, height: 16 });
  });

  it.each([
    ['a missing file', () => join(dir, 'nothing.svg'), /cannot read .*nothing\.svg \(ENOENT\)/],
    ['a folder', () => dir, /cannot read .* \(EISDIR\)/],
    ['a text file', () => file('logo.txt', 'our logo'), /logo\.txt is not a PNG or SVG image/],
    ['a JPEG', () => file('logo.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0])), /not a PNG or SVG/],
    ['an HTML page', () => file('logo.html', '<html><svg/></html>'), /not a PNG or SVG image/],
    [
      'an SVG without a size',
      () => file('sizeless.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>'),
      /sizeless\.svg has no size: give its <svg> a width and height in px, or a viewBox/,
    ],
    [
      'an SVG sized in %',
      () => file('percent.svg', '<svg width="100%" height="100%"/>'),
      /percent\.svg has no size/,
    ],
    [
      'a cut PNG',
      () => file('cut.png', png(48, 16).subarray(0, 20)),
      /cut\.png is not a valid PNG/,
    ],
  ])('refuses to start with %s as BRAND_LOGO, saying why', (_, path, message) => {
    expect(() => loadConfig({ BRAND_LOGO: path() })).toThrow(
      /^Invalid environment:\n {2}BRAND_LOGO: /,
    );
    expect(() => loadConfig({ BRAND_LOGO: path() })).toThrow(message);
  });
});
