"""librosa: audio features on a synthetic signal."""

import numpy as np
import librosa

sr = 8000
t = np.linspace(0.0, 2.0, 2 * sr, endpoint=False)
y = (0.5 * np.sin(2 * np.pi * 220.0 * t) + 0.1 * np.sin(2 * np.pi * 440.0 * t)).astype(np.float32)
librosa.zero_crossings(y)
librosa.feature.zero_crossing_rate(y)
librosa.util.localmax(np.abs(y[:200]))
librosa.util.localmin(np.abs(y[:200]).astype(np.float64))
S = np.abs(librosa.stft(y, n_fft=512))
librosa.onset.onset_strength(S=S, sr=sr)
librosa.beat.beat_track(y=y, sr=sr)
librosa.yin(y, fmin=80, fmax=800, sr=sr, frame_length=1024)
librosa.pyin(y[:4000], fmin=80, fmax=800, sr=sr, frame_length=1024)
librosa.lpc(y[:2000], order=4)
chroma = librosa.feature.chroma_stft(S=S, sr=sr)
librosa.sequence.dtw(chroma, chroma[:, ::-1])
librosa.sequence.viterbi(np.full((3, 20), 1.0 / 3), np.full((3, 3), 1.0 / 3))
librosa.sequence.rqa(librosa.segment.recurrence_matrix(chroma, mode="affinity"))
librosa.feature.stack_memory(chroma, n_steps=3)
librosa.util.match_intervals(np.array([[0.0, 1.0], [1.0, 2.0]]), np.array([[0.0, 1.5], [1.5, 2.0]]))
librosa.util.match_events(np.array([0.1, 0.5]), np.array([0.0, 0.4, 0.9]))
librosa.hz_to_note(440.0)
librosa.midi_to_svara_h(60, Sa=60)
librosa.util.peak_pick(np.abs(y[:500]), pre_max=3, post_max=3, pre_avg=3, post_avg=5, delta=0.1, wait=10)
print("librosa ok")
