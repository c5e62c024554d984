import { describe, expect, it } from 'vitest';
import { linkMarketerId, marketerLink } from './marketer-link';

describe('linkMarketerId: who may see the link page (SPEC §6)', () => {
  it.each([
    ['a marketer with a numeric id', { role: 'marketing', id: 42 }, '42'],
    ['a team leader with a string id', { role: 'team_leader_marketing', id: 'm-7' }, 'm-7'],
    ['a marketer with other fields', { role: 'marketing', id: 3, name: 'x', token: 't' }, '3'],
  ])('lets in %s', (_, user, id) => {
    expect(linkMarketerId(JSON.stringify(user))).toBe(id);
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
    expect(linkMarketerId(storedUser)).toBeNull();
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
});
