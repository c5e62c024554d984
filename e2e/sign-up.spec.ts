import type { Locator, Page } from '@playwright/test';
import { arForm } from '../src/domain/catalogue/form';
import { packageLabels } from '../src/domain/packages';
import type { RegistrationsTable } from '../src/server/db/schema';
import { arabicIndic, arabicName, expect, open, storedRows, test, uniquePhone } from './support';

// A sign-up through the real server into the real SQLite file, read back with `npm run export`.

async function submitAndWait(page: Page) {
  await page.getByRole('button', { name: arForm.buttonSubmit }).click();
  await expect(page.getByRole('status')).toHaveText(arForm.success);
  await expect(page.getByRole('alert')).toHaveText('');
  // docs/product.md §4: the values are reset after success.
  for (const field of [arForm.fieldName, arForm.fieldEmail, arForm.fieldPhone]) {
    await expect(page.getByRole('textbox', { name: field })).toHaveValue('');
  }
}

const routeKinds: {
  kind: string;
  path: string;
  expected: Pick<RegistrationsTable, 'notes' | 'marketing_id' | 'package_key' | 'source'>;
}[] = [
  {
    kind: 'package and marketer',
    path: '/register/register-client/premium_reco/m-1001',
    expected: {
      notes: `${arForm.notesPackagePrefix} ${packageLabels.premium_reco} - ${arForm.notesMarketerLink}`,
      marketing_id: 'm-1001',
      package_key: 'premium_reco',
      source: 'marketer_link',
    },
  },
  {
    kind: 'package only',
    path: '/register/register-client/economy_portfolio',
    expected: {
      notes: `${arForm.notesPackagePrefix} ${packageLabels.economy_portfolio} - ${arForm.notesGeneralLink}`,
      marketing_id: null,
      package_key: 'economy_portfolio',
      source: 'general_link',
    },
  },
  {
    kind: 'marketer only',
    path: '/register/marketer/2002',
    expected: {
      notes: arForm.notesMarketerLink,
      marketing_id: '2002',
      package_key: null,
      source: 'marketer_link',
    },
  },
  {
    kind: 'neither (free trial)',
    path: '/register/register-client',
    expected: {
      notes: arForm.notesGeneralLink,
      marketing_id: null,
      package_key: null,
      source: 'general_link',
    },
  },
];

// One export per test rather than per sign-up: each export starts Node.

test('a sign-up through each of the four route kinds is stored with its notes and attribution', async ({
  page,
}) => {
  const sent: { kind: string; phone: string; email: string; expected: object }[] = [];
  for (const { kind, path, expected } of routeKinds) {
    await test.step(kind, async () => {
      const phone = uniquePhone();
      const email = `e2e-${phone}@example.com`;
      await open(page, path);
      await page.getByRole('textbox', { name: arForm.fieldName }).fill('Sara Ahmed');
      await page.getByRole('textbox', { name: arForm.fieldEmail }).fill(email);
      await page.getByRole('textbox', { name: arForm.fieldPhone }).fill(phone);
      await submitAndWait(page);
      sent.push({ kind, phone, email, expected });
    });
  }

  const rows = await storedRows(sent.map(({ phone }) => phone));
  for (const [index, { kind, phone, email, expected }] of sent.entries()) {
    expect(rows[index], kind).toMatchObject({ ...expected, name: 'Sara Ahmed', email, phone });
  }
});

/** Each way people enter a mobile number: what they do in the field, given the 9665 number. */
const inputWays: {
  way: string;
  enter: (page: Page, field: Locator, phone: string) => Promise<void>;
}[] = [
  {
    way: 'typed in Arabic-Indic digits',
    enter: async (page, field, phone) => {
      await field.click();
      await page.keyboard.type(arabicIndic(phone));
    },
  },
  {
    way: 'a local 05 number in Arabic-Indic digits',
    enter: async (page, field, phone) => {
      await field.click();
      await page.keyboard.type(arabicIndic(`0${phone.slice(3)}`));
    },
  },
  {
    way: 'a local 05 number',
    enter: (_page, field, phone) => field.pressSequentially(`0${phone.slice(3)}`),
  },
  {
    // '+966 50 123 4567' is longer than maxlength=12; the app normalises the paste itself.
    way: "'+966 5x xxx xxxx' pasted from the clipboard with Ctrl+V",
    enter: async (page, field, phone) => {
      const pasted = `+966 ${phone.slice(3, 5)} ${phone.slice(5, 8)} ${phone.slice(8)}`;
      await page.evaluate((text) => navigator.clipboard.writeText(text), pasted);
      await field.focus();
      await page.keyboard.press('ControlOrMeta+V');
    },
  },
  {
    // A synthetic paste, as a phone's "paste" menu sends it: a ClipboardEvent with its data.
    way: "'00966 5x-xxx-xxxx' in Arabic-Indic digits, as a paste event",
    enter: async (_page, field, phone) => {
      const pasted = arabicIndic(
        `00966 ${phone.slice(3, 5)}-${phone.slice(5, 8)}-${phone.slice(8)}`,
      );
      await field.focus();
      await field.evaluate((input, text) => {
        const clipboardData = new DataTransfer();
        clipboardData.setData('text/plain', text);
        input.dispatchEvent(
          new ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true }),
        );
      }, pasted);
    },
  },
];

test('an Arabic name and every way of entering the mobile end as 9665 numbers in the database', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const phones: string[] = [];
  for (const { way, enter } of inputWays) {
    await test.step(way, async () => {
      const phone = uniquePhone();
      await open(page, '/register/register-client/classic_reco');
      await page.getByRole('textbox', { name: arForm.fieldName }).pressSequentially(arabicName);
      const field = page.getByRole('textbox', { name: arForm.fieldPhone });
      await enter(page, field, phone);
      await expect(field).toHaveValue(phone);
      await submitAndWait(page);
      phones.push(phone);
    });
  }

  const rows = await storedRows(phones);
  for (const [index, row] of rows.entries()) {
    expect(row, inputWays[index]?.way).toMatchObject({
      name: arabicName,
      email: null,
      phone: phones[index],
      package_key: 'classic_reco',
    });
  }
});
