import { scalar, search, text } from '../../lib/search';

/** `/playground?prompt=<prompt id>&version=<n>`: start from a stored prompt version. */
export const playgroundSearch = search({ prompt: text(), version: scalar() });
