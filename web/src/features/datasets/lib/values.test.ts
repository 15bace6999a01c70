import { describe, expect, it } from 'vitest';
import { changeText, fromField, jsonError, toField } from './values';

describe('dataset item fields', () => {
  it('keeps text as text and JSON as JSON, both ways', () => {
    for (const v of ['capital of France?', { q: 'x' }, [1, 2], 42, true, null, '{"looks": "like JSON"}', '12']) {
      expect(fromField(toField(v))).toEqual(v ?? '');
    }
    expect(fromField('{"q": 1}')).toEqual({ q: 1 });
    expect(fromField('Paris')).toBe('Paris');
  });

  it('flags a broken object or list, not plain text', () => {
    expect(jsonError('{"q": 1')).toMatch(/^Not valid JSON/);
    expect(jsonError('hello {')).toBeNull();
    expect(jsonError('[1, 2]')).toBeNull();
  });

  it('says what a version changed', () => {
    expect(changeText({ change: 'production:requests:newest', added: 2, updated: 0, archived: 0 })).toBe(
      'from requests (newest): 2 added',
    );
    expect(changeText({ change: 'upload:csv', added: 1, updated: 1, archived: 0 })).toBe(
      'CSV upload: 1 added, 1 updated',
    );
    expect(changeText({ change: 'archive', added: 0, updated: 0, archived: 1 })).toBe('item deleted: 1 deleted');
  });
});
