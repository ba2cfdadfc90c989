import { createRoot } from 'react-dom/client';
import { createAuthAdapter } from './adapters/supabase/auth.ts';
import { supabaseClient } from './adapters/supabase/client.ts';
import { liveProfileAdapter } from './adapters/supabase/profile.ts';
import { Root } from './app/Root.tsx';
import { sessionLogic } from './app/session.ts';
import './app/app.css';

// The composition root: the one place real adapters meet the machines.
const session = sessionLogic(createAuthAdapter(supabaseClient()), liveProfileAdapter());

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
createRoot(container).render(<Root session={session} />);
