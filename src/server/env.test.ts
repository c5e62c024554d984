import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './env';

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
      distDir: resolve('dist'),
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
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`Invalid environment:\\n  ${name}`),
    );
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'y' })).toThrow(/PORT[^]*LOG_LEVEL/);
  });
});
