import { render } from '@testing-library/react';
import type { Brand } from '../domain/render-contract';
import { App } from './app';
import { defaultBrand } from './brand';

/** A provider with every BRAND_* variable and SITE_URL set; '&' checks the escaping. */
export const sampleBrand: Brand = {
  name: 'شركة المثال & شركاه المالية',
  logo: { src: '/register/brand-logo-0123456789ab.svg', width: 240, height: 80 },
  licence: '08126-37',
  siteUrl: 'https://provider.example/',
};

/** For tests: the whole app at a path, /register prefix included, as a browser would show it. */
export function renderApp(path: string, brand: Brand = defaultBrand) {
  return render(<App location={path} brand={brand} />);
}
