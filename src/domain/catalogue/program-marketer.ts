// One marketer's page on the programme (docs/program.md), in its own chunk; it reuses arProgram's
// and arStats's labels of the same numbers, and arReview's of a lead. Its title is shared.ts's.
export const arProgramMarketer = {
  // The marketer as the programme's table names them (arStats.named, or their id alone).
  heading: (marketer: string) => `نتائج المسوق ${marketer}`,
  // Back to the programme's page, on the same period.
  back: 'العودة إلى نتائج البرنامج',
  team: 'الفريق',
  // An id the directory has no row for: shown by the id alone, its numbers whatever they are.
  unknown: 'هذا المسوق غير موجود في دليل المسوقين: يُعرض برقمه فقط',
  // The period's leads by their status now (arLeadStatus's labels).
  outcomes: 'حالة تسجيلات الفترة',
  // Their flagged leads with no decision yet, whatever the period; decided on the programme's
  // review list.
  awaiting: (count: number) => `تسجيلاته بانتظار المراجعة (${count})`,
  awaitingNote: 'تُتخذ القرارات في قائمة المراجعة في صفحة البرنامج.',
  awaitingNone: 'لا توجد تسجيلات لهذا المسوق بانتظار المراجعة',
  // The period's leads whose latest decision is "not credited".
  notCredited: (count: number) => `تسجيلاته غير المحتسبة في الفترة (${count})`,
  notCreditedNone: 'لا توجد تسجيلات غير محتسبة لهذا المسوق في الفترة',
  // A list longer than the page shows: its first ones.
  firstShown: (shown: number) => `تُعرض أول ${shown} منها.`,
} as const;
