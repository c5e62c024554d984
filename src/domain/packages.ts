export const packageLabels = {
  classic_reco: 'توصيات - كلاسيك',
  economy_reco: 'توصيات - اقتصادي',
  premium_reco: 'توصيات - بريميوم',
  classic_portfolio: 'محفظة - كلاسيك',
  economy_portfolio: 'محفظة - اقتصادي',
  premium_portfolio: 'محفظة - بريميوم',
} as const;

export type PackageKey = keyof typeof packageLabels;

export const packageKeys = Object.keys(packageLabels) as PackageKey[];

/** Whether `key` is one of the catalogue's packages (not merely of a key's shape). */
export function isPackageKey(key: string): key is PackageKey {
  return Object.hasOwn(packageLabels, key);
}

/** The Arabic label of a known package; an unknown key is shown as it came (docs/product.md §2). */
export function packageLabel(packageName: string): string {
  return isPackageKey(packageName) ? packageLabels[packageName] : packageName;
}

/** The inverse of packageLabel: a known label gives its key, anything else stays as it is. */
export function packageKeyOf(label: string): string {
  return packageKeys.find((key) => packageLabels[key] === label) ?? label;
}

/**
 * The shape of a package key: a package added later is shown by its key, but no other text is
 * (it would put anyone's sentence on the provider's page and in its link previews).
 */
export const packageKeyPattern = /^[A-Za-z0-9_-]{1,40}$/;
