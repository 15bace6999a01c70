import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

/** What Mantine needs from a browser that jsdom lacks (media queries, resize observers). */
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }),
});
class NoResize {
  observe() {}
  unobserve() {}
  disconnect() {}
}
window.ResizeObserver = NoResize;
window.HTMLElement.prototype.scrollIntoView = () => {};
// Mantine's autosize Textarea listens for web fonts loading.
if (!('fonts' in document))
  Object.defineProperty(document, 'fonts', { value: { addEventListener: () => {}, removeEventListener: () => {} } });

afterEach(cleanup);
