// The console's look for the component library (Mantine): its colours and fonts match the
// console's own stylesheet (style.css), which styles the plain elements the pages use.
import { createTheme } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  primaryShade: 8,
  fontFamily: 'system-ui, sans-serif',
  headings: { fontFamily: 'system-ui, sans-serif' },
  defaultRadius: 'sm',
  // The shell's navigation collapses behind a burger below this width (about 768 px).
  breakpoints: { xs: '36em', sm: '48em', md: '62em', lg: '75em', xl: '88em' },
});
