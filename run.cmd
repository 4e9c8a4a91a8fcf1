@echo off
rem Sets up Stepwise (virtual environment, dependencies) if needed, then starts it.
rem The first start also builds the engine sd-stage.exe from source once (minutes, with MSVC and
rem the Vulkan SDK; see native\README.md); later starts skip it. An installed Stepwise
rem (installer\README.md) needs none of this.
setlocal
cd /d "%~dp0"
set PY=py -3.12
if defined STEPWISE_PYTHON set PY=%STEPWISE_PYTHON%
%PY% scripts\setup_env.py app || exit /b 1
.venv\Scripts\python.exe -m app %*
