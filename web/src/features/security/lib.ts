import type { Schema } from '../../api/types';

/** Where a finding was seen, in words: `request body`, `output of a span`. */
export const place = (f: Pick<Schema<'SecurityFinding'>, 'source' | 'field'>) => {
  const field = f.field.replace('_', ' ');
  return f.source === 'request' ? field : `${field} of a ${f.source}`;
};
