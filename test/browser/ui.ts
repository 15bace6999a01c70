import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';

export const SHOTS = path.resolve(__dirname, '../../.data/screenshots');
export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

interface Violation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}

/**
 * Screenshots and accessibility checks of the page as it is: at 1440×900 and 390×844, in the
 * light and the dark theme, each checked with axe-core (WCAG 2 A/AA). Returns the serious and
 * critical violations, named `page@size/theme: rule (selectors)`, so a test can expect `[]`.
 */
export async function review(page: Page, name: string): Promise<string[]> {
  const axe = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  const bad: string[] = [];
  for (const dark of [false, true]) {
    await setTheme(page, dark);
    for (const [size, viewport] of [
      ['1440', DESKTOP],
      ['390', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await settle(page);
      await page.screenshot({ path: path.join(SHOTS, `${name}-${size}${dark ? '-dark' : ''}.png`), fullPage: true });
      bad.push(...(await overflow(page)).map((o) => `${name}@${size}: wider than the screen: ${o}`));
      if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.addScriptTag({ content: axe });
      const found = (await page.evaluate(
        'axe.run(document, { runOnly: ["wcag2a", "wcag2aa"] }).then((r) => r.violations)',
      )) as Violation[];
      for (const v of found) {
        if (v.impact === 'serious' || v.impact === 'critical')
          bad.push(
            `${name}@${size}/${dark ? 'dark' : 'light'}: ${v.id} (${v.nodes
              .map((n) => n.target.join(' '))
              .slice(0, 3)
              .join(', ')})`,
          );
      }
    }
  }
  await setTheme(page, false);
  await page.setViewportSize(DESKTOP);
  // The caller acts next: on the page as it ends up, not while the navbar slides back from the phone layout.
  await settle(page);
  return bad;
}

/**
 * Waits for the page to follow a new width or theme: until no finite CSS transition or animation
 * runs (the navbar's slide, a drawer's), then two drawn frames (layout and resize observers,
 * charts re-measured). A fixed sleep would wait too little on a busy machine and too long otherwise.
 */
export async function settle(page: Page): Promise<void> {
  await page.waitForFunction(
    `document.getAnimations().every((a) => a.playState !== 'running' ||
      a.effect?.getComputedTiming().iterations === Infinity)`,
    undefined,
    { polling: 'raf', timeout: 3000 },
  );
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
}

/** Elements that stick out past the right edge of the viewport (a phone would scroll sideways). */
async function overflow(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const w = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= w) return [];
    const out = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      // Toasts sliding in or out and dialogs are layers of their own: they do not widen the page.
      if (r.right > w + 1 && r.width > 0 && !el.closest('.mantine-Notifications-root, .mantine-Modal-root')) {
        let clip = el.parentElement;
        while (clip && getComputedStyle(clip).overflowX === 'visible') clip = clip.parentElement;
        if (!clip || clip === document.body || clip === document.documentElement) {
          const classes = String(el.className).split(' ').slice(0, 2).join('.');
          out.push(el.tagName.toLowerCase() + '.' + classes + ' ' + Math.round(r.right) + 'px');
        }
      }
    }
    return out.slice(0, 5);
  })()`)) as string[];
}

/** The shell's toggle when the page has one, else the colour-scheme attribute Mantine's CSS reads. */
async function setTheme(page: Page, dark: boolean) {
  const toggle = page.getByRole('button', { name: 'Dark theme' });
  if (await toggle.count()) {
    // With a drawer or dialog open its overlay covers the header: the click is dispatched to the toggle itself.
    if ((await toggle.getAttribute('aria-pressed')) !== String(dark))
      await ((await page.locator('[role=dialog]').count()) ? toggle.dispatchEvent('click') : toggle.click());
  } else {
    await page.evaluate(
      `document.documentElement.setAttribute('data-mantine-color-scheme', '${dark ? 'dark' : 'light'}')`,
    );
  }
  await page.waitForFunction(
    `document.documentElement.getAttribute('data-mantine-color-scheme') === '${dark ? 'dark' : 'light'}'`,
  );
}

/**
 * Closes every toast and waits for them to leave, so a screenshot (and axe) sees the page under
 * them. A toast under a dialog's overlay cannot be clicked: its close button gets the click event
 * itself. The mouse leaves the page first, since a hovered toast never closes itself.
 */
export async function dismissToasts(page: Page) {
  await page.mouse.move(0, 0);
  for (const b of await page.locator('.mantine-Notification-root button').all())
    await b.dispatchEvent('click', undefined, { timeout: 1000 }).catch(() => {});
  await page.waitForSelector('.mantine-Notification-root', { state: 'detached', timeout: 10_000 });
}

/**
 * How many elements matching `sel` end past the screen's right edge (with `selfScroll`, or scroll
 * sideways themselves), plus one if the page scrolls sideways: 0 when a phone layout fits.
 */
export function sticksOut(page: Page, sel: string, opts: { selfScroll?: boolean } = {}): Promise<number> {
  return page.evaluate(`(() => {
    const w = document.documentElement.clientWidth;
    const out = [...document.querySelectorAll(${JSON.stringify(sel)})];
    const self = ${opts.selfScroll ? 'true' : 'false'};
    const past = (e) => e.getBoundingClientRect().right > w + 1;
    const wide = out.filter((e) => past(e) || (self && e.scrollWidth > e.clientWidth + 1));
    return wide.length + (document.documentElement.scrollWidth > w ? 1 : 0);
  })()`);
}
