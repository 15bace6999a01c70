/**
 * jose is ESM-only; this CommonJS build loads it with a dynamic import (once), which works the same
 * under tsx, jest (SWC) and the compiled output.
 */
export type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });
let loading: Promise<Jose> | undefined;
export const loadJose = (): Promise<Jose> => (loading ??= import('jose'));
