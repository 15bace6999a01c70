import { search, text } from '../../lib/search';

/** `/datasets/<id>?version=<ISO time>`: the dataset as it was at that version. */
export const datasetSearch = search({ version: text() });
