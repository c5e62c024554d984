import { arForm } from '../src/domain/catalogue/form';
import { arabicName, expect, open, recordPosts, test, uniquePhone } from './support';

// docs/product.md §5: a failed check sends nothing. Empty required fields and a malformed e-mail are
// stopped by the browser's own constraint validation (the inputs are required and type=email);
// a blank-looking name or a wrong phone reaches the app's check and shows the Arabic error.

const path = '/register/register-client/premium_reco/1001';

test.describe('a failed check sends nothing', () => {
  test('an empty form is stopped by the required fields', async ({ page }) => {
    const { posts, settle } = recordPosts(page);
    await open(page, path);
    await page.getByRole('button', { name: arForm.buttonSubmit }).click();
    const name = page.getByRole('textbox', { name: arForm.fieldName });
    expect(await name.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(
      true,
    );
    await settle();
    expect(posts).toHaveLength(0);
  });

  test('a name without a phone is stopped by the required phone', async ({ page }) => {
    const { posts, settle } = recordPosts(page);
    await open(page, path);
    await page.getByRole('textbox', { name: arForm.fieldName }).fill(arabicName);
    await page.getByRole('button', { name: arForm.buttonSubmit }).click();
    const phone = page.getByRole('textbox', { name: arForm.fieldPhone });
    expect(await phone.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(
      true,
    );
    await settle();
    expect(posts).toHaveLength(0);
  });

  test('a malformed e-mail is stopped by the browser', async ({ page }) => {
    const { posts, settle } = recordPosts(page);
    await open(page, path);
    await page.getByRole('textbox', { name: arForm.fieldName }).fill(arabicName);
    await page.getByRole('textbox', { name: arForm.fieldEmail }).fill('not-an-email');
    await page.getByRole('textbox', { name: arForm.fieldPhone }).fill(uniquePhone());
    await page.getByRole('button', { name: arForm.buttonSubmit }).click();
    const email = page.getByRole('textbox', { name: arForm.fieldEmail });
    expect(await email.evaluate((input: HTMLInputElement) => input.validity.typeMismatch)).toBe(
      true,
    );
    await settle();
    expect(posts).toHaveLength(0);
  });

  const invalid = [
    { case: 'a name of spaces', name: '   ', phone: uniquePhone(), field: arForm.fieldName },
    { case: 'a short phone', name: arabicName, phone: '96651234', field: arForm.fieldPhone },
    { case: 'a phone not 9665', name: arabicName, phone: '966412345678', field: arForm.fieldPhone },
    { case: 'a phone with letters', name: arabicName, phone: '9665abc', field: arForm.fieldPhone },
  ];
  for (const entry of invalid) {
    test(`${entry.case} shows the Arabic error, tied to the field`, async ({ page }) => {
      const { posts, settle } = recordPosts(page);
      await open(page, path);
      await page.getByRole('textbox', { name: arForm.fieldName }).fill(entry.name);
      await page.getByRole('textbox', { name: arForm.fieldPhone }).fill(entry.phone);
      await page.getByRole('button', { name: arForm.buttonSubmit }).click();
      await expect(page.getByRole('alert')).toHaveText(arForm.errorInvalid);
      const field = page.getByRole('textbox', { name: entry.field });
      await expect(field).toHaveAttribute('aria-invalid', 'true');
      await expect(field).toHaveAccessibleDescription(arForm.errorInvalid);
      await settle();
      expect(posts).toHaveLength(0);
    });
  }
});

test('a corrected form clears the error and registers', async ({ page }) => {
  await open(page, path);
  const phone = page.getByRole('textbox', { name: arForm.fieldPhone });
  await page.getByRole('textbox', { name: arForm.fieldName }).fill(arabicName);
  await phone.fill('96651');
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
  await expect(page.getByRole('alert')).toHaveText(arForm.errorInvalid);

  await phone.fill(uniquePhone());
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
  await expect(page.getByRole('status')).toHaveText(arForm.success);
  await expect(page.getByRole('alert')).toHaveText('');
  await expect(phone).not.toHaveAttribute('aria-invalid');
});
