import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { prefetchRoute } from './app/prefetch';
import { queryClient } from './app/provider';
import { preloadPlotly } from './lib/plot';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('#root missing from index.html');
// First the page's data requests, then React, then Plotly: the requests leave before
// anything long runs on the main thread, and Plotly's parse overlaps with the server's work.
const plotly = prefetchRoute(queryClient, window.location);
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
if (plotly) preloadPlotly(plotly);
