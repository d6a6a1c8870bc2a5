import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { preloadPlotly } from './lib/plot';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('#root missing from index.html');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
// Every page but Runs/Machines/Configurations shows a plot: do not wait for the
// page's data before loading the plotting library (it would be a request waterfall).
preloadPlotly();
