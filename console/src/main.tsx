import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ConfirmProvider } from './components/Confirm';
import './mantine.css';
import './style.css';
import { theme } from './theme';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="light">
      <Notifications position="bottom-right" autoClose={10_000} limit={4} />
      <ConfirmProvider>
        <App />
      </ConfirmProvider>
    </MantineProvider>
  </StrictMode>,
);
