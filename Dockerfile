# The BPE playground as a container image: one Streamlit server, offline at run time.
#
#   docker build -t bpe-playground .
#   docker run --rm -p 8501:8501 bpe-playground            # then open http://localhost:8501
#   docker run --rm -e PORT=9000 -p 9000:9000 bpe-playground
#
# Several replicas behind nginx with sticky sessions: see deploy/README.md.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    STREAMLIT_SERVER_HEADLESS=true \
    PORT=8501

WORKDIR /app

# Dependencies first, so editing the app does not reinstall them (the only network use: build time).
COPY requirements.txt ./
RUN pip install -r requirements.txt

# The app itself.  The vocabularies ship in engine/data, so nothing is downloaded at run time.
COPY app.py ./
COPY .streamlit/config.toml .streamlit/config.toml
COPY engine/ engine/
COPY playground/ playground/
# Compiled once here: PYTHONDONTWRITEBYTECODE keeps the server from writing .pyc files, so without this
# every server start would compile the app's modules from source during its first page.
RUN python -m compileall -q engine playground

RUN useradd --create-home --uid 10001 --user-group app
USER app
# The rank files parsed once, into the app user's cache (engine/formats/rank_cache.py): a fresh container's
# first page then reads o200k_base back in about 0.1 s instead of parsing it (0.3-0.5 s).
RUN python -c "import engine; [engine.get_encoding(n) for n in ('gpt2', 'cl100k_base', 'o200k_base', 'llama3', 'llama4', 'qwen2.5', 'mistral-tekken')]"

EXPOSE 8501

# Streamlit answers "ok" on /_stcore/health once it serves; python is in the image, curl is not.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/_stcore/health' % os.environ.get('PORT', '8501'), timeout=4)"

# Bind every interface inside the container (config.toml's 127.0.0.1 is for running on a laptop);
# the port comes from $PORT.  browser.serverAddress: with a wildcard address and no such setting,
# Streamlit would look up the machine's external IP over the network to print an "External URL".
# exec: streamlit gets SIGTERM from `docker stop` directly.
CMD ["sh", "-c", "exec streamlit run app.py --server.address=0.0.0.0 --server.port=\"${PORT}\" --server.headless=true --browser.serverAddress=localhost"]
