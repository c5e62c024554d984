import type { Locator, Page } from '@playwright/test';
import { arForm } from '../src/domain/catalogue/form';
import { arLinkPage } from '../src/domain/catalogue/link-page';
import { arabicName, expect, open, storedRow, test, uniquePhone } from './support';

// A visitor with a keyboard only: Tab reaches everything in reading order, Enter submits,
// focus can be seen, and the error is announced and tied to its field.

const path = '/register/register-client/premium_reco/1001';

/** What has focus, in words a failure message can show. */
function focused(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (element === null || element === document.body) return 'body';
    const tag = element.tagName.toLowerCase();
    const text = ['input', 'select', 'textarea'].includes(tag) ? '' : element.textContent?.trim();
    return `${tag}:${element.id || text}`;
  });
}

async function outline(locator: Locator) {
  return locator.evaluate((element) => {
    const style = getComputedStyle(element);
    return {
      style: style.outlineStyle,
      width: parseFloat(style.outlineWidth),
      colour: style.outlineColor,
      shadow: style.boxShadow,
    };
  });
}

test('Tab goes name, e-mail, mobile, register, back to the site', async ({ page }) => {
  await open(page, path);
  const order: string[] = [];
  for (let step = 0; step < 5; step += 1) {
    await page.keyboard.press('Tab');
    order.push(await focused(page));
  }
  expect(order).toEqual([
    'input:field-name',
    'input:field-email',
    'input:field-phone',
    `button:${arForm.buttonSubmit}`,
    `a:${arForm.buttonBack}`,
  ]);

  // Right to left: register stands at the start (right) of its row, or above 'back' when the
  // two wrap on a narrow phone.
  const submit = await page.getByRole('button', { name: arForm.buttonSubmit }).boundingBox();
  const back = await page.getByRole('link', { name: arForm.buttonBack }).boundingBox();
  if (submit === null || back === null) throw new Error('the buttons are not laid out');
  const sameRow = Math.abs(submit.y - back.y) < 1;
  if (sameRow) expect(submit.x).toBeGreaterThan(back.x);
  else expect(submit.y).toBeLessThan(back.y);
});

test('focus is visible on every field and button', async ({ page }) => {
  await open(page, path);
  const targets = [
    page.getByRole('textbox', { name: arForm.fieldName }),
    page.getByRole('textbox', { name: arForm.fieldEmail }),
    page.getByRole('textbox', { name: arForm.fieldPhone }),
    page.getByRole('button', { name: arForm.buttonSubmit }),
    page.getByRole('link', { name: arForm.buttonBack }),
  ];
  const before = await Promise.all(targets.map(outline));
  for (const [index, target] of targets.entries()) {
    await page.keyboard.press('Tab');
    await expect(target).toBeFocused();
    const now = await outline(target);
    expect(now, `focus ring of target ${index}`).not.toEqual(before[index]);
    expect(now.style).not.toBe('none');
    expect(now.width).toBeGreaterThanOrEqual(2);
    // The brand green, #0b5d3b.
    expect(now.colour).toBe('rgb(11, 93, 59)');
  }
});

test('Enter in the form submits it', async ({ page }) => {
  const phone = uniquePhone();
  await open(page, path);
  await page.keyboard.press('Tab');
  await page.keyboard.type(arabicName);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.type(phone);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status')).toHaveText(arForm.success);
  const row = await storedRow(phone);
  expect(row.name).toBe(arabicName);
});

test('the error is announced and tied to its field', async ({ page }) => {
  await open(page, path);
  // The alert region is in the page before anything goes wrong, so screen readers watch it.
  const alert = page.getByRole('alert');
  await expect(alert).toHaveText('');
  await expect(page.getByRole('status')).toHaveText('');

  await page.keyboard.press('Tab');
  await page.keyboard.type(arabicName);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.type('96651');
  await page.keyboard.press('Enter');

  await expect(alert).toHaveText(arForm.errorInvalid);
  const phone = page.getByRole('textbox', { name: arForm.fieldPhone });
  await expect(phone).toHaveAttribute('aria-invalid', 'true');
  const describedBy = await phone.getAttribute('aria-describedby');
  expect(describedBy).not.toBeNull();
  await expect(page.locator(`[id="${describedBy}"]`)).toHaveRole('alert');
  await expect(phone).toHaveAccessibleDescription(arForm.errorInvalid);
  // The valid field is not marked.
  await expect(page.getByRole('textbox', { name: arForm.fieldName })).not.toHaveAttribute(
    'aria-invalid',
  );
});

test('the link page can be used with the keyboard', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.addInitScript(() => localStorage.setItem('user', '{"role":"marketing","id":5}'));
  const alerts: string[] = [];
  page.on('dialog', async (dialog) => {
    alerts.push(dialog.message());
    await dialog.accept();
  });
  await open(page, '/register/my-registration-link');
  const link = page.getByRole('textbox', { name: arLinkPage.heading });
  const copy = page.getByRole('button', { name: arLinkPage.buttonCopy });
  // The link shows once the client has read the stored user, just after hydration.
  await expect(copy).toBeVisible();

  // Tab in reading order until the copy button, each stop with a visible ring; the link box
  // comes before it.
  const stops: string[] = [];
  while (!(await copy.evaluate((element) => element === document.activeElement))) {
    expect(stops.length, `Tab stops before the copy button: ${stops.join(', ')}`).toBeLessThan(5);
    await page.keyboard.press('Tab');
    stops.push(await focused(page));
    const ring = await page.evaluate(() => {
      const element = document.activeElement;
      return element === null ? 'none' : getComputedStyle(element).outlineStyle;
    });
    expect(ring, `focus ring on ${stops.at(-1)}`).not.toBe('none');
  }
  expect(stops).toContain('textarea:');
  expect(stops.indexOf('textarea:')).toBe(stops.length - 2);
  await expect(link).not.toBeFocused();
  await page.keyboard.press('Enter');
  await expect.poll(() => alerts).toEqual([arLinkPage.alertCopied]);
});
