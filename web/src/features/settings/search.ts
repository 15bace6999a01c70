import { oneOf, search } from '../../lib/search';

export const SETTINGS_TABS = ['projects', 'providers', 'members', 'exports', 'plan', 'filters'] as const;
export const settingsSearch = search({ tab: oneOf(SETTINGS_TABS) });
