import { search, text } from '../../lib/search';

export const auditSearch = search({ action: text(), resource_type: text() });
