// The e-mails' pictures in docs/screenshots/: each sample e-mail (testing/sample-mails.ts),
// composed as the server composes it, shown as a mail client shows its HTML: on a 320 px phone
// (light, and the weekly summary dark too) and the programme's summary on a desktop. Part of
// `npm run screenshots`; alone, without the pages' build: `npx tsx scripts/mail-screenshots.ts`.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from '@playwright/test';
import { sampleBrand } from '../testing/sample-brand';
import { sampleMailBrand, sampleMails } from '../testing/sample-mails';
import { chromiumArgs, requireChromium } from './local-machine';

type SampleName = keyof typeof sampleMails;

// Which e-mail, on which screen: the phone at 320 px (the narrowest the pages are tested at),
// at twice its pixels as the pages' phone pictures; the desktop at one.
const shots: { file: string; mail: SampleName; phone: boolean; dark?: boolean }[] = [
  { file: 'mail-phone-confirmation.png', mail: 'confirmation', phone: true },
  { file: 'mail-phone-marketer-week.png', mail: 'marketer-week', phone: true },
  { file: 'mail-phone-marketer-week-dark.png', mail: 'marketer-week', phone: true, dark: true },
  { file: 'mail-phone-team-leader-week.png', mail: 'team-leader-week', phone: true },
  { file: 'mail-phone-client.png', mail: 'client', phone: true },
  { file: 'mail-phone-review.png', mail: 'review', phone: true },
  { file: 'mail-desktop-program-week.png', mail: 'program-week', phone: false },
];

export async function takeMailScreenshots(browser: Browser, outDir: string) {
  const logo = readFileSync(sampleBrand.logo);
  for (const shot of shots) {
    const context = await browser.newContext({
      viewport: shot.phone ? { width: 320, height: 640 } : { width: 1280, height: 800 },
      deviceScaleFactor: shot.phone ? 2 : 1,
      isMobile: shot.phone,
      colorScheme: shot.dark === true ? 'dark' : 'light',
      locale: 'ar-SA',
    });
    const page = await context.newPage();
    // The logo's address is on a PUBLIC_URL this script has none of: the sample's file instead.
    await page.route(sampleMailBrand.logoUrl ?? '', (route) =>
      route.fulfill({ body: logo, contentType: 'image/svg+xml' }),
    );
    await page.setContent((await sampleMails[shot.mail]()).html, { waitUntil: 'load' });
    const file = join(outDir, shot.file);
    await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
    console.log(`${file}  ${Math.round(statSync(file).size / 1024)} KB`);
    await context.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const browser = await chromium.launch({ executablePath: requireChromium(), args: chromiumArgs });
  try {
    await takeMailScreenshots(browser, 'docs/screenshots');
  } finally {
    await browser.close();
  }
}
