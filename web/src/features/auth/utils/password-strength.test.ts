import { describe, expect, it } from 'vitest';
import { isWeakPassword, passwordScore, strengthLabel } from './password-strength';

describe('password strength (spec 2 §5)', () => {
  it.each([
    ['', 0],
    ['abc', 1],
    ['ABC', 1],
    ['123', 1],
    ['!!!', 1],
    ['abcdefgh', 2],
    ['Abc', 2],
    ['Abcdefgh', 3],
    ['Abcdefg1', 4],
    ['Abcdef1!', 5],
    ['aB1!', 4],
    ['ção', 1],
    ['Ação 2024 ok', 5],
    ['senha com espaço', 3],
  ])('%j scores %i', (password, score) => {
    expect(passwordScore(password)).toBe(score);
  });

  it('counts length from 8 characters', () => {
    expect(passwordScore('abcdefg')).toBe(1);
    expect(passwordScore('abcdefgh')).toBe(2);
  });

  it('labels weak up to 2, medium 3 to 4, strong 5', () => {
    expect([0, 1, 2, 3, 4, 5].map(strengthLabel)).toEqual(['weak', 'weak', 'weak', 'medium', 'medium', 'strong']);
  });

  it('warns on login for a score of 2 or lower', () => {
    expect(isWeakPassword('123456')).toBe(true);
    expect(isWeakPassword('abcdefgh')).toBe(true);
    expect(isWeakPassword('Abcdefgh')).toBe(false);
  });
});
