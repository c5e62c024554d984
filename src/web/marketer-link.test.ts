import { describe, expect, it } from 'vitest';
import { arLinkPage } from '../domain/catalogue/link-page';
import { ar } from '../domain/catalogue/shared';
import { basePath } from '../domain/links';
import { packageKeys, packageLabels } from '../domain/packages';
import {
  channelLink,
  linkMarketingId,
  marketerLink,
  qrFileName,
  whatsAppShareUrl,
} from './marketer-link';
import { matchScreen } from './routes';

describe('linkMarketingId: who may see the link page (docs/product.md §6)', () => {
  it.each([
    ['a marketer with a numeric id', { role: 'marketing', id: 42 }, '42'],
    ['a team leader with a string id', { role: 'team_leader_marketing', id: 'm-7' }, 'm-7'],
    ['a marketer with other fields', { role: 'marketing', id: 3, name: 'x', token: 't' }, '3'],
  ])('lets in %s', (_, user, id) => {
    expect(linkMarketingId(JSON.stringify(user))).toBe(id);
  });

  it.each([
    ['no user', null],
    ['malformed JSON', '{"role":"marketing",'],
    ['JSON null', 'null'],
    ['a JSON string', '"marketing"'],
    ['another role', JSON.stringify({ role: 'client', id: 42 })],
    ['a role in another case', JSON.stringify({ role: 'Marketing', id: 42 })],
    ['a marketer without an id', JSON.stringify({ role: 'marketing' })],
    ['an empty id', JSON.stringify({ role: 'marketing', id: ' ' })],
    ['an id that is not a string or number', JSON.stringify({ role: 'marketing', id: [1] })],
  ])('refuses %s', (_, storedUser) => {
    expect(linkMarketingId(storedUser)).toBeNull();
  });
});

describe('marketerLink', () => {
  it('is {origin}/register/marketer/{id}, with the id encoded', () => {
    expect(marketerLink('https://example.com', '42')).toBe(
      'https://example.com/register/marketer/42',
    );
    expect(marketerLink('https://example.com', 'a/b c')).toBe(
      'https://example.com/register/marketer/a%2Fb%20c',
    );
  });

  it.each(packageKeys)('is {origin}/register/register-client/%s/{id} for that package', (key) => {
    expect(marketerLink('https://example.com', 'a/b c', key)).toBe(
      `https://example.com/register/register-client/${key}/a%2Fb%20c`,
    );
  });

  it.each([undefined, ...packageKeys])(
    'opens the form of its pick (%s) for its marketer',
    (key) => {
      const { pathname } = new URL(marketerLink('https://example.com', 'a/b c', key));
      expect(matchScreen(pathname, ar.brandDefault, basePath)).toEqual({
        kind: 'form',
        packageName: key,
        marketingId: 'a/b c',
        title:
          key === undefined
            ? ar.titleGeneric(ar.brandDefault)
            : ar.titlePackage(packageLabels[key], ar.brandDefault),
      });
    },
  );
});

describe('channelLink', () => {
  it('tags the link with the campaign parameters of the channel', () => {
    const link = marketerLink('https://example.com', '42', 'premium_reco');
    expect(channelLink(link, 'whatsapp')).toBe(`${link}?utm_source=whatsapp&utm_medium=referral`);
    expect(channelLink(link, 'share')).toBe(`${link}?utm_source=share`);
    expect(channelLink(link, 'qr')).toBe(`${link}?utm_source=qr`);
  });

  it('still opens the same form, for the same marketer', () => {
    const link = marketerLink('https://example.com', 'm-7');
    const url = new URL(channelLink(link, 'whatsapp'));
    expect(`${url.origin}${url.pathname}`).toBe(link);
    expect(matchScreen(url.pathname, ar.brandDefault)).toEqual(
      matchScreen(new URL(link).pathname, ar.brandDefault),
    );
  });
});

describe('whatsAppShareUrl', () => {
  it('puts the whole text, Arabic, line breaks and all, in wa.me text parameter', () => {
    const text = arLinkPage.shareMessage(
      arLinkPage.shareInvitationPackage(packageLabels.premium_reco),
      'https://example.com/register/register-client/premium_reco/7?a=1&b=2#x',
    );
    const url = new URL(whatsAppShareUrl(text));
    expect(`${url.origin}${url.pathname}`).toBe('https://wa.me/');
    expect([...url.searchParams.keys()]).toEqual(['text']);
    expect(url.searchParams.get('text')).toBe(text);
    expect(whatsAppShareUrl(text)).toBe(`https://wa.me/?text=${encodeURIComponent(text)}`);
  });
});

describe('qrFileName', () => {
  it('names the PNG after the marketer and the pick', () => {
    expect(qrFileName('42')).toBe('tasjeel-42-free-trial.png');
    expect(qrFileName('m-7', 'economy_reco')).toBe('tasjeel-m-7-economy_reco.png');
  });

  it('keeps an id from reading as a folder or an odd file name', () => {
    expect(qrFileName('../a b\\c:d', 'premium_portfolio')).toBe(
      'tasjeel-___a_b_c_d-premium_portfolio.png',
    );
  });
});
