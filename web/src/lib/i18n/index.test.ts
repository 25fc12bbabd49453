import { afterEach, describe, expect, it } from 'vitest';
import i18n, { loadLanguage, setLanguage, withCatalogues } from './index';
import ptFirstLoad from './locales/pt';
import flowsPt from '../../features/flows/locales/pt';

describe('catalogues loaded on demand', () => {
  afterEach(async () => {
    await setLanguage('pt');
  });

  it('holds only Portuguese until another language is loaded', async () => {
    expect(i18n.hasResourceBundle('pt', 'translation')).toBe(true);
    expect(i18n.hasResourceBundle('tr', 'translation')).toBe(false);
    await loadLanguage('tr');
    expect(i18n.hasResourceBundle('tr', 'translation')).toBe(true);
    expect(i18n.getFixedT('tr')('common.save')).not.toBe(i18n.getFixedT('pt')('common.save'));
  });

  it('switches to a language after fetching its catalogue, and remembers it', async () => {
    await setLanguage('es');
    expect(i18n.resolvedLanguage).toBe('es');
    expect(i18n.t('common.cancel')).toBe('Cancelar');
    expect(i18n.t('common.delete')).not.toBe('Excluir');
    expect(localStorage.getItem('language')).toBe('es');
    expect(document.documentElement.lang).toBe('es-ES');
  });
});

describe('Portuguese catalogues of pages the inbox does not show', () => {
  it('are not in the first load, and load with their page', async () => {
    for (const section of ['flows', 'phraseLists', 'queues', 'connections', 'settings', 'users', 'userModal', 'signup']) expect(Object.keys(ptFirstLoad)).not.toContain(section);
    expect(Object.keys(ptFirstLoad)).toContain('tickets');
    const page = await withCatalogues(['flows'], () => Promise.resolve({ default: 'the page' }))();
    expect(page.default).toBe('the page');
    expect(i18n.getFixedT('pt')('flows.title')).toBe(flowsPt.flows.title);
  });
});
