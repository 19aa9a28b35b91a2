;;; eglot.el --- Emacs's eglot against `python -m pyserver lsp`, in batch  -*- lexical-binding: t -*-
;; Configured as docs/editors.md tells Emacs users to. Opens NUMBA_LENS_FILE, waits for flymake's
;; diagnostics, asks for a hover on NUMBA_LENS_HOVER_LINE:COL (0-based) and writes what arrived to
;; NUMBA_LENS_OUT as JSON. It asserts nothing: tests/editors/test_emacs.py does.
(require 'json)
(require 'project)
(require 'python)
(require 'eglot)

(defvar numba-lens-python (getenv "NUMBA_LENS_PYTHON"))
(defvar numba-lens-file (getenv "NUMBA_LENS_FILE"))
(defvar numba-lens-out (getenv "NUMBA_LENS_OUT"))
(defvar numba-lens-result (list (cons 'errors nil)))

;; What a user puts in init.el (docs/editors.md, "Emacs").
(add-to-list 'eglot-server-programs
             `((python-mode python-ts-mode)
               . (,numba-lens-python "-m" "pyserver" "lsp"
                     ;; A generous analysis time-out (20 s by default): the test machine may be loaded.
                     :initializationOptions (:trusted t :settings (:timeout 180)))))

(defun numba-lens-wait (predicate seconds)
  "Run timers and process output until PREDICATE is true or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.2))
    (funcall predicate)))

(condition-case err
    (progn
      (find-file numba-lens-file)
      (python-mode)
      (let ((eglot-sync-connect nil))
        (apply #'eglot (eglot--guess-contact)))
      ;; The first start imports pygls and checks the environment: connect in the background, wait here.
      (numba-lens-wait #'eglot-current-server 120)
      (let ((server (or (eglot-current-server) (error "eglot did not connect"))))
        (push (cons 'server_name (plist-get (eglot--server-info server) :name)) numba-lens-result)
        (push (cons 'got_diagnostics
                    (if (numba-lens-wait (lambda () (flymake-start) (flymake-diagnostics)) 240) t :json-false))
              numba-lens-result)
        (push (cons 'diagnostics
                    (vconcat
                     (mapcar (lambda (d)
                               (save-excursion
                                 (goto-char (flymake-diagnostic-beg d))
                                 (list (cons 'line (1- (line-number-at-pos)))
                                       (cons 'text (buffer-substring-no-properties
                                                    (flymake-diagnostic-beg d) (flymake-diagnostic-end d)))
                                       (cons 'type (symbol-name (flymake-diagnostic-type d)))
                                       (cons 'message (flymake-diagnostic-text d)))))
                             (flymake-diagnostics))))
              numba-lens-result)
        (let* ((line (string-to-number (getenv "NUMBA_LENS_HOVER_LINE")))
               (col (string-to-number (getenv "NUMBA_LENS_HOVER_COL")))
               (hover (jsonrpc-request server :textDocument/hover
                                       (list :textDocument (list :uri (eglot--path-to-uri numba-lens-file))
                                             :position (list :line line :character col)))))
          (push (cons 'hover (plist-get (plist-get hover :contents) :value)) numba-lens-result))
        (eglot-shutdown server)))
  (error (push (cons 'errors (vector (format "%S" err))) numba-lens-result)))

(with-temp-file numba-lens-out
  (insert (json-encode numba-lens-result)))
(kill-emacs 0)
