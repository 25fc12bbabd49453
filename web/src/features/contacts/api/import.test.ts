import { describe, expect, it } from 'vitest';
import { assignField, availableFields, guessMapping, isAcceptedFile, mappingBody, missingFields, rowCells } from './import';

describe('contact import rules', () => {
  it('accepts xls, xlsx, csv and txt only', () => {
    for (const name of ['a.xls', 'b.XLSX', 'c.csv', 'd.txt']) expect(isAcceptedFile(name)).toBe(true);
    for (const name of ['a.pdf', 'xlsx', 'b.xlsx.exe', 'c']) expect(isAcceptedFile(name)).toBe(false);
  });

  it('guesses the mapping from the headers, each field once', () => {
    expect(guessMapping(['Nome', 'Número', 'E-mail', 'Outro', 'Telefone'])).toEqual({ Nome: 'name', Número: 'number', 'E-mail': 'email', Outro: '', Telefone: '' });
  });

  it('refuses to map a column to a field another column already has', () => {
    const mapping = { A: 'name', B: '', C: 'number' } as const;
    expect(assignField(mapping, 'B', 'name')).toBe(mapping);
    expect(availableFields(mapping, 'B')).toEqual(['email', 'tags']);
    expect(availableFields(mapping, 'A')).toEqual(['name', 'email', 'tags']);
    const moved = assignField(mapping, 'A', 'email');
    expect(moved).toEqual({ A: 'email', B: '', C: 'number' });
    expect(assignField(moved, 'B', 'name')).toEqual({ A: 'email', B: 'name', C: 'number' });
  });

  it('requires name and number, and builds the field → column body', () => {
    expect(missingFields({ A: '', B: 'email' })).toEqual(['name', 'number']);
    expect(missingFields({ A: 'number', B: 'email' })).toEqual(['name']);
    expect(missingFields({ A: 'number', B: 'name' })).toEqual([]);
    expect(mappingBody({ A: 'number', B: 'name', C: '' })).toEqual({ name: 'B', number: 'A' });
    expect(mappingBody({ A: 'number', B: 'name', C: 'tags', D: 'email' })).toEqual({ name: 'B', number: 'A', tags: 'C', email: 'D' });
  });

  it('reads preview rows as arrays or as objects keyed by column', () => {
    expect(rowCells(['x', 'y'], ['A', 'B', 'C'])).toEqual(['x', 'y', '']);
    expect(rowCells({ B: 'y', A: 'x' }, ['A', 'B'])).toEqual(['x', 'y']);
  });
});
