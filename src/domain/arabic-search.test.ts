import { describe, expect, it } from 'vitest';
import { matchesSearch, searchForm } from './arabic-search';

describe('searchForm', () => {
  it('writes every form of alef as a bare alef', () => {
    for (const typed of ['أحمد', 'إحمد', 'آحمد', 'ٱحمد', 'احمد']) {
      expect(searchForm(typed), typed).toBe('احمد');
    }
  });

  it('reads taa marbuta as haa, and alef maqsura as yaa', () => {
    expect(searchForm('فاطمة')).toBe(searchForm('فاطمه'));
    expect(searchForm('مصطفى')).toBe(searchForm('مصطفي'));
    // Only those: a haa stays a haa, a taa a taa.
    expect(searchForm('فاطمت')).not.toBe(searchForm('فاطمه'));
  });

  it('drops the short vowels and tatweel, and reads Arabic digits as Latin ones', () => {
    expect(searchForm('مُحَمَّد')).toBe('محمد');
    expect(searchForm('محـــمد')).toBe('محمد');
    expect(searchForm('١٠٤٢')).toBe('1042');
  });

  it('lowers Latin letters and trims the spaces', () => {
    expect(searchForm('  M-42  ')).toBe('m-42');
    expect(searchForm('سارة   القحطاني')).toBe('ساره القحطاني');
  });
});

describe('matchesSearch', () => {
  const marketer = ['إيمان الزهراني', '1042'];

  it('finds a name whatever the form of alef, taa marbuta or yaa typed, and a part of it', () => {
    for (const typed of ['ايمان', 'أيمان', 'إيمان', 'الزهراني', 'ايمان الزهراني']) {
      expect(matchesSearch(typed, marketer), typed).toBe(true);
    }
    expect(matchesSearch('فاطمه', ['فاطمة'])).toBe(true);
    expect(matchesSearch('هدى', ['هدي العمري'])).toBe(true);
    expect(matchesSearch('هدي', ['هدى العمري'])).toBe(true);
  });

  it('finds an id in either digits, and nothing else', () => {
    expect(matchesSearch('104', marketer)).toBe(true);
    expect(matchesSearch('١٠٤٢', marketer)).toBe(true);
    expect(matchesSearch('1043', marketer)).toBe(false);
    expect(matchesSearch('نورة', marketer)).toBe(false);
  });

  it('lets everything through while nothing is typed; a name unknown is no match', () => {
    expect(matchesSearch('  ', [null])).toBe(true);
    expect(matchesSearch('ا', [null])).toBe(false);
  });
});
