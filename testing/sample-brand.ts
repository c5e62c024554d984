import { fileURLToPath } from 'node:url';

/**
 * A provider with every brand variable of docs/configuration.md set, for the browser tests
 * (axe checks the header, the licence line and the privacy notice) and the screenshots: not a
 * real firm or licence.
 */
export const sampleBrand = {
  name: 'شركة المثال المالية',
  logo: fileURLToPath(new URL('sample-brand/logo.svg', import.meta.url)),
  licence: '08126-37',
  siteUrl: 'https://provider.example/',
  privacyUrl: 'https://provider.example/privacy',
  privacyVersion: '2026-11',
};

/** The same, as the server's environment. */
export const sampleBrandEnv = {
  BRAND_NAME: sampleBrand.name,
  BRAND_LOGO: sampleBrand.logo,
  BRAND_LICENCE: sampleBrand.licence,
  PRIVACY_URL: sampleBrand.privacyUrl,
  PRIVACY_VERSION: sampleBrand.privacyVersion,
};
