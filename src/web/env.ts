// Vite inlines import.meta.env at build time, so this is fixed per build and checked on load.
// The provider's name and logo are not: the server sets them at start (brand.tsx).

export const apiBaseUrl: string = readApiBaseUrl(import.meta.env.VITE_API_BASE_URL);

function readApiBaseUrl(value: string | undefined): string {
  if (value === undefined || value === '') return '';
  // A bare host such as "api.example.com" would silently become a path under /register/.
  if (!/^(https?:\/\/[^/]|\/)/.test(value)) {
    throw new Error(`VITE_API_BASE_URL must be empty, a path or an http(s) URL, not "${value}"`);
  }
  return value.replace(/\/+$/, '');
}
