import { describe, expect, it } from 'vitest';
import { maskPhone, phoneDigits } from './phone';

describe('phone mask (99) 99999-9999', () => {
  it('masks as the user types', () => {
    expect(maskPhone('1')).toBe('(1');
    expect(maskPhone('11')).toBe('(11');
    expect(maskPhone('119')).toBe('(11) 9');
    expect(maskPhone('1198765')).toBe('(11) 98765');
    expect(maskPhone('11987654321')).toBe('(11) 98765-4321');
  });
  it('ignores non-digits and extra digits', () => {
    expect(maskPhone('(11) 98765-43210')).toBe('(11) 98765-4321');
    expect(phoneDigits('(11) 98765-4321')).toBe('11987654321');
  });
});
