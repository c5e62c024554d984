import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './env';

describe('loadConfig', () => {
  it('has a default for everything', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      database: { kind: 'sqlite', file: resolve('data/registrations.db') },
      corsOrigins: [],
      trustProxy: false,
      rateLimitPerMinute: 120,
      logLevel: 'info',
      siteUrl: undefined,
    });
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
    });
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
    ['DATABASE_URL', 'postgres://localhost/tasjeel'],
    ['DATABASE_URL', 'sqlite:'],
    ['CORS_ORIGINS', '*'],
    ['CORS_ORIGINS', 'null'],
    ['CORS_ORIGINS', 'https://a.example/'],
    ['CORS_ORIGINS', 'a.example'],
    ['TRUST_PROXY', 'yes'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['LOG_LEVEL', 'verbose'],
    ['SITE_URL', 'javascript:alert(1)'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`Invalid environment:\\n  ${name}`),
    );
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'y' })).toThrow(/PORT[^]*LOG_LEVEL/);
  });
});
