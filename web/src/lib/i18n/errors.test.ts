import { afterEach, describe, expect, it } from 'vitest';
import i18n, { setLanguage } from './index';
import { translateError, translateFieldCode } from './errors';
import { ApiError } from '../api/errors';

describe('error translation (spec 1 §8)', () => {
  afterEach(async () => {
    await setLanguage('pt');
  });

  it('translates a known ERR_* code', () => {
    expect(translateError(new ApiError(401, 'ERR_INVALID_CREDENTIALS', 'bad'), i18n.t)).toBe('Erro de autenticação. Por favor, tente novamente.');
  });

  it('follows the chosen language', async () => {
    await setLanguage('en');
    expect(translateError(new ApiError(409, 'ERR_DUPLICATED_EMAIL', 'dup'), i18n.t)).toBe('A user with this email already exists.');
    await setLanguage('es');
    expect(translateError(new ApiError(0, 'ERR_NETWORK', ''), i18n.t)).toBe('No se pudo conectar con el servidor.');
  });

  it('falls back to the raw message for an unknown code', () => {
    expect(translateError(new ApiError(418, 'ERR_TEAPOT', 'I am a teapot'), i18n.t)).toBe('I am a teapot');
  });

  it('falls back to "An error occurred!" translated when there is nothing to show', async () => {
    expect(translateError(new ApiError(500, undefined, ''), i18n.t)).toBe('Ocorreu um erro!');
    expect(translateError(undefined, i18n.t)).toBe('Ocorreu um erro!');
    await setLanguage('en');
    expect(translateError(new ApiError(500, 'ERR_UNKNOWN', '   '), i18n.t)).toBe('An error occurred!');
  });

  it('accepts a bare code string or an {error} body', () => {
    expect(translateError('ERR_OUT_OF_HOURS', i18n.t)).toBe('Fora do horário de expediente!');
    expect(translateError({ error: 'ERR_NO_PERMISSION' }, i18n.t)).toBe('Você não tem permissão para acessar este recurso.');
    expect(translateError(new Error('boom'), i18n.t)).toBe('boom');
  });

  it('translates validation codes and message keys', async () => {
    expect(translateFieldCode('TOO_SHORT', i18n.t)).toBe('Muito curto!');
    expect(translateFieldCode('forgotPassword.mismatch', i18n.t)).toBe('As senhas não correspondem');
    expect(translateFieldCode('SOMETHING_ELSE', i18n.t)).toBe('SOMETHING_ELSE');
    expect(translateFieldCode(undefined, i18n.t)).toBeUndefined();
    await setLanguage('en');
    expect(translateFieldCode('REQUIRED', i18n.t)).toBe('Required');
    expect(translateFieldCode('INVALID_EMAIL', i18n.t)).toBe('Invalid email');
  });
});
