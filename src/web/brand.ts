import { createContext, useContext } from 'react';
import { ar } from '../domain/catalogue/shared';
import type { Brand } from '../domain/render-contract';

/** The <meta> through which the server's brand reaches the client (head.ts writes it). */
export const brandMeta = 'brand';

export const defaultBrand: Brand = { name: ar.brandDefault };

// The provider the server rendered with (RenderOptions.brand): App provides it to every screen.
const BrandContext = createContext<Brand>(defaultBrand);

export const BrandProvider = BrandContext.Provider;

export function useBrand(): Brand {
  return useContext(BrandContext);
}

/**
 * The brand the server rendered the page with, so that hydration draws the same header and
 * titles. Without the tag (a page not from this server), the default name alone.
 */
export function readBrand(): Brand {
  const content = document.querySelector<HTMLMetaElement>(`meta[name="${brandMeta}"]`)?.content;
  if (content === undefined) return defaultBrand;
  try {
    const brand = JSON.parse(content) as Partial<Brand>;
    return typeof brand.name === 'string' ? (brand as Brand) : defaultBrand;
  } catch {
    return defaultBrand;
  }
}
