import { describe, expect, it } from 'vitest';
import { acceptOf, extensionOf, hasExtension, mimeTypeOf } from './files';

describe('file names and types', () => {
  it("takes the last dot's extension, lower-cased, and none from a name without one", () => {
    expect(['a.PNG', 'b.tar.GZ', 'notes', '.env', 'dot.'].map(extensionOf)).toEqual(['png', 'gz', '', '', '']);
  });

  it('checks a name against a list of extensions', () => {
    expect(hasExtension('a.JPEG', ['png', 'jpg', 'jpeg'])).toBe(true);
    expect(hasExtension('a.png.exe', ['png'])).toBe(false);
    expect(hasExtension('png', ['png'])).toBe(false);
  });

  it('keeps a declared type and reads an undeclared one from the extension', () => {
    expect(mimeTypeOf({ name: 'a.png', type: 'image/webp' })).toBe('image/webp');
    expect(mimeTypeOf({ name: 'a.JPG', type: '' })).toBe('image/jpeg');
    expect(mimeTypeOf({ name: 'a.xlsx', type: '' })).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(mimeTypeOf({ name: 'a.exe', type: '' })).toBeUndefined();
    expect(mimeTypeOf({ name: 'toString', type: '' })).toBeUndefined();
  });

  it('writes an accept attribute from extensions', () => {
    expect(acceptOf(['png', 'jpg', 'jpeg'])).toBe('.png,.jpg,.jpeg,image/png,image/jpeg');
  });
});
