import { describe, expect, it } from 'vitest';
import { matchByName, nameContains, normalizeName } from '../src/match.js';

describe('normalizeName', () => {
  it('folds case, strips accents and collapses whitespace', () => {
    expect(normalizeName('  Ÿes,\tÉCOLE \n  Café ')).toBe('yes, ecole cafe');
    expect(normalizeName('Straße')).toBe('straße');
    expect(normalizeName('OK\u00a0 Button')).toBe('ok button');
  });
  it('keeps non-Latin letters', () => {
    expect(normalizeName('Сохранить')).toBe('сохранить');
  });
});

describe('nameContains', () => {
  it('matches normalized substrings and treats an empty query as everything', () => {
    expect(nameContains('Ouvrir le fichier…', 'FICHIER')).toBe(true);
    expect(nameContains('Résumé', 'resume')).toBe(true);
    expect(nameContains('Save', 'sav e')).toBe(false);
    expect(nameContains('anything', '  ')).toBe(true);
  });
});

describe('matchByName', () => {
  const els = [{ name: 'Save as…' }, { name: 'Save' }, { name: 'Autosave' }, { name: ' save ' }, { name: 'Cancel' }];

  it('prefers exact normalized matches over substrings, in tree order', () => {
    const r = matchByName(els, 'SAVE');
    expect(r.exact).toBe(true);
    expect(r.pool).toEqual([{ name: 'Save' }, { name: ' save ' }]);
  });
  it('falls back to substring matches', () => {
    const r = matchByName(els, 'sav');
    expect(r.exact).toBe(false);
    expect(r.pool.map((e) => e.name)).toEqual(['Save as…', 'Save', 'Autosave', ' save ']);
  });
  it('matches across accents and whitespace', () => {
    const r = matchByName([{ name: 'Paramètres  avancés' }, { name: 'Paramètres' }], 'parametres avances');
    expect(r).toEqual({ pool: [{ name: 'Paramètres  avancés' }], exact: true });
  });
  it('returns nothing for no match and for an empty name', () => {
    expect(matchByName(els, 'delete')).toEqual({ pool: [], exact: false });
    expect(matchByName(els, '   ')).toEqual({ pool: [], exact: false });
  });
});
