import { readFileSync } from 'node:fs';
import { renderWireTypes, WIRE_FILE } from '../../../scripts/gen-sdk-types';

describe('SDK wire types', () => {
  it('sdk/src/wire.ts is generated from the current ingest schemas (run `npm run sdk:types` when this fails)', () => {
    expect(readFileSync(WIRE_FILE, 'utf8')).toBe(renderWireTypes());
  });
});
